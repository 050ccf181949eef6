import { Link } from '@tanstack/react-router'
import { cn } from '../../lib/cn.ts'
import { useIsProjectAdmin } from '../collaborators/use-is-admin.ts'

const tab =
  'shrink-0 whitespace-nowrap -mb-px rounded-t-md border-b-2 px-3 py-1.5 text-sm font-medium text-muted-foreground hover:text-foreground focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent'

/** A project's pages: its errors, its releases, its stability (crash-free sessions over a period), its source maps and symbols, its webhooks and, for admins, its privacy requests. The current one is marked. */
export function ProjectNav({ projectId, className }: { projectId: string; className?: string }) {
  const isAdmin = useIsProjectAdmin(projectId)
  const active = { className: 'border-accent text-foreground', 'aria-current': 'page' as const }
  const inactive = { className: 'border-transparent' }
  return (
    <nav aria-label="Project" className={cn('mb-4 flex gap-1 overflow-x-auto border-b border-border [scrollbar-width:none]', className)}>
      <Link to="/projects/$projectId/errors" params={{ projectId }} className={tab} activeProps={active} inactiveProps={inactive}>
        Errors
      </Link>
      <Link to="/projects/$projectId/releases" params={{ projectId }} className={tab} activeProps={active} inactiveProps={inactive}>
        Releases
      </Link>
      <Link to="/projects/$projectId/stability" params={{ projectId }} className={tab} activeProps={active} inactiveProps={inactive}>
        Stability
      </Link>
      <Link
        to="/projects/$projectId/source-maps"
        params={{ projectId }}
        // At phone width the short name keeps the tabs on one line; the link's name stays whole.
        aria-label="Source maps & symbols"
        className={tab}
        activeProps={active}
        inactiveProps={inactive}
      >
        <span className="sm:hidden">Source maps</span>
        <span className="hidden sm:inline">Source maps & symbols</span>
      </Link>
      <Link to="/projects/$projectId/webhooks" params={{ projectId }} className={tab} activeProps={active} inactiveProps={inactive}>
        Webhooks
      </Link>
      {isAdmin ? (
        <Link to="/projects/$projectId/privacy" params={{ projectId }} className={tab} activeProps={active} inactiveProps={inactive}>
          Privacy
        </Link>
      ) : null}
    </nav>
  )
}
