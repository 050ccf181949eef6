import { useCallback, useState } from 'react'

const STORAGE_KEY = 'errata.errors-trend-collapsed'
/** Below Tailwind's md: a phone, where the list comes first and the trend starts folded. */
const NARROW = '(max-width: 767.98px)'

function initiallyCollapsed(): boolean {
  const stored = window.localStorage.getItem(STORAGE_KEY)
  if (stored !== null) return stored === 'true'
  return window.matchMedia?.(NARROW).matches ?? false
}

/**
 * Whether the errors page's trend is folded away: the user's last choice (kept in local storage,
 * for every project), else folded on phones and open on wider screens.
 */
export function useTrendCollapsed(): [boolean, (collapsed: boolean) => void] {
  const [collapsed, setCollapsedState] = useState(initiallyCollapsed)
  const setCollapsed = useCallback((next: boolean) => {
    window.localStorage.setItem(STORAGE_KEY, String(next))
    setCollapsedState(next)
  }, [])
  return [collapsed, setCollapsed]
}
