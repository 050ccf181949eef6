import { useCallback, useState } from 'react'

const STORAGE_KEY = 'errata.errors-trend-collapsed'

function initiallyCollapsed(): boolean {
  return window.localStorage.getItem(STORAGE_KEY) !== 'false'
}

/**
 * Whether the errors page's trend is folded away: the user's last choice (kept in local storage,
 * for every project), else folded, so the list comes first (in the top 300 px of a laptop screen,
 * first on a phone) and the chart is one click away.
 */
export function useTrendCollapsed(): [boolean, (collapsed: boolean) => void] {
  const [collapsed, setCollapsedState] = useState(initiallyCollapsed)
  const setCollapsed = useCallback((next: boolean) => {
    window.localStorage.setItem(STORAGE_KEY, String(next))
    setCollapsedState(next)
  }, [])
  return [collapsed, setCollapsed]
}
