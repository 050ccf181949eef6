import { useRouterState } from '@tanstack/react-router'

declare module '@tanstack/history' {
  interface HistoryState {
    /** Cursors of the pages visited before this one, first page first ('' stands for the first page). */
    pageTrail?: string[]
  }
}

export type PageTrail = {
  /** Where "Previous page" goes; null when the way here is unknown (a shared link), so only "First page" is offered. */
  previous: { cursor: string | undefined; state: { pageTrail: string[] } } | null
  /** The history state for the link to the next page. */
  nextState: { pageTrail: string[] }
}

/**
 * The API pages forward only (a cursor per page, rel="next"), so "Previous page" goes back along the cursors
 * this tab followed. They travel in the history entry's state, not the URL: a shared link stays one page,
 * and Previous still works after a reload.
 */
export function usePageTrail(cursor: string | undefined): PageTrail {
  const stored = useRouterState({ select: (state) => state.location.state.pageTrail })
  const trail = cursor && Array.isArray(stored) && stored.every((item) => typeof item === 'string') ? stored : []
  const last = trail.at(-1)
  return {
    previous: last === undefined ? null : { cursor: last || undefined, state: { pageTrail: trail.slice(0, -1) } },
    nextState: { pageTrail: [...trail, cursor ?? ''] },
  }
}
