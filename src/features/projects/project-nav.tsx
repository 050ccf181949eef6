import { Link } from '@tanstack/react-router'
import { cn } from '../../lib/cn.ts'
import { useIsProjectAdmin } from '../collaborators/use-is-admin.ts'

const tab =
  '-mb-px rounded-t-md border-b-2 px-3 py-1.5 text-sm font-medium text-muted-foreground hover:text-foreground focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent'

/** A project's pages: its errors, its releases, its stability (crash-free sessions over a period) and, for admins, its privacy requests. The current one is marked. */
export function ProjectNav({ projectId, className }: { projectId: string; className?: string }) {
  const isAdmin = useIsProjectAdmin(projectId)
  const active = { className: 'border-accent text-foreground', 'aria-current': 'page' as const }
  const inactive = { className: 'border-transparent' }
  return (
    <nav aria-label="Project" className={cn('mb-4 flex gap-1 border-b border-border', className)}>
      <Link to="/projects/$projectId/errors" params={{ projectId }} className={tab} activeProps={active} inactiveProps={inactive}>
        Errors
      </Link>
      <Link to="/projects/$projectId/releases" params={{ projectId }} className={tab} activeProps={active} inactiveProps={inactive}>
        Releases
      </Link>
      <Link to="/projects/$projectId/stability" params={{ projectId }} className={tab} activeProps={active} inactiveProps={inactive}>
        Stability
      </Link>
      {isAdmin ? (
        <Link to="/projects/$projectId/privacy" params={{ projectId }} className={tab} activeProps={active} inactiveProps={inactive}>
          Privacy
        </Link>
      ) : null}
    </nav>
  )
}
