import { useRouterState } from '@tanstack/react-router'

/**
 * A thin bar under the header while the router loads the next view: pages that keep showing
 * their current content during a reload (a filter change) still say that something is coming.
 */
export function NavigationProgress() {
  const loading = useRouterState({ select: (state) => state.status === 'pending' })
  if (!loading) return null
  return (
    <div
      role="progressbar"
      aria-label="Loading"
      className="fixed inset-x-0 top-0 z-50 h-0.5 overflow-hidden bg-accent/20"
    >
      <div className="h-full w-1/3 animate-[navigation-progress_1.2s_ease-in-out_infinite] bg-accent" />
    </div>
  )
}
