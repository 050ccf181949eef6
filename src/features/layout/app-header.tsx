import { useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate, useParams, useRouterState } from '@tanstack/react-router'
import { ChevronRight, LogOut, UserCog } from 'lucide-react'
import { useEffect } from 'react'
import type * as React from 'react'
import { currentUserQuery, logout } from '../../api/auth.ts'
import { errorQuery } from '../../api/errors.ts'
import { organizationQuery } from '../../api/organizations.ts'
import { projectQuery } from '../../api/projects.ts'
import { Button, buttonVariants } from '../../components/ui/button.tsx'
import { cn } from '../../lib/cn.ts'
import { errorClassLabel } from '../../lib/error-class.ts'
import { rememberLastProject } from '../../lib/last-project.ts'
import { errorsListSearchFor } from '../errors/errors-list-return.ts'
import { filterSearchSchema, fromErrorFilterSearch } from '../filters/to-filter-search.ts'
import { ProjectSwitcher } from './project-switcher.tsx'

const crumbLink = 'rounded text-muted-foreground hover:text-foreground'

interface CrumbItem {
  key: string
  node: React.ReactNode
  /** Gives up its width before the other levels do: its full text is the page's own heading. */
  shrinksFirst?: boolean
  /** On phones shown whole, wrapping: a name people chose, at most 200 characters (not event data). */
  wholeOnPhones?: boolean
}

/** Organization › project › error breadcrumbs, read from the current route's parameters. */
function Breadcrumbs() {
  const params = useParams({ strict: false })
  // The page's `f`: the header sits above the page's route, so it reads the location's.
  const rawFilters = useRouterState({ select: (state) => state.location.search.f })
  const project = useQuery({ ...projectQuery(params.projectId ?? ''), enabled: Boolean(params.projectId) })
  const organizationId = params.organizationId ?? project.data?.organization_id
  const organization = useQuery({ ...organizationQuery(organizationId ?? ''), enabled: Boolean(organizationId) })
  const error = useQuery({
    ...errorQuery(params.projectId ?? '', params.errorId ?? ''),
    enabled: Boolean(params.projectId && params.errorId),
  })

  const items: CrumbItem[] = [
    { key: 'organizations', node: <Link to="/organizations" className={crumbLink}>Organizations</Link> },
  ]
  if (organizationId) {
    items.push({
      key: 'organization',
      // Under a project, the project's name is the one to keep whole: the organization gives way first.
      shrinksFirst: Boolean(params.projectId),
      wholeOnPhones: true,
      node: (
        <Link to="/organizations/$organizationId" params={{ organizationId }} className={crumbLink}>
          {organization.data?.name ?? 'Organization'}
        </Link>
      ),
    })
  }
  if (params.projectId) {
    items.push({
      key: 'project',
      wholeOnPhones: true,
      node: (
        <Link
          to="/projects/$projectId/errors"
          params={{ projectId: params.projectId }}
          // From an error's pages, back to the list it was opened from (an error's `f` has no default filter).
          search={params.errorId ? errorsListSearchFor(params.projectId, fromErrorFilterSearch(filterSearchSchema.parse(rawFilters))) : {}}
          className={crumbLink}
        >
          {project.data?.name ?? 'Project'}
        </Link>
      ),
    })
  }
  if (params.projectId && params.errorId) {
    items.push({
      key: 'error',
      shrinksFirst: true,
      node: (
        <Link
          to="/projects/$projectId/errors/$errorId"
          params={{ projectId: params.projectId, errorId: params.errorId }}
          className={crumbLink}
        >
          {error.data ? errorClassLabel(error.data.error_class) : 'Error'}
        </Link>
      ),
    })
  }
  if (params.eventId) items.push({ key: 'event', node: <span>Event</span> })

  return (
    // On phones the breadcrumbs take a row of their own below the logo and actions, and names wrap
    // whole instead of being cut: "Acme Inc. › checkout-api" is what tells you where you are.
    <nav aria-label="Breadcrumbs" className="order-last min-w-0 basis-full pb-2 sm:order-none sm:flex-1 sm:basis-auto sm:pb-0">
      <ol className="flex min-w-0 items-center gap-1 text-sm max-sm:flex-wrap">
        {items.map((item, index) => {
          const current = index === items.length - 1
          // Phones show the last two levels; the rest is one tap away through them.
          const narrowHidden = index < items.length - 2
          const parent = index === items.length - 2
          return (
            <li
              key={item.key}
              aria-current={current ? 'page' : undefined}
              // Each level keeps a few characters and one long name cannot squeeze the others to nothing. A level that gives way
              // first only takes the room the others leave (no basis, grows up to its own width), so they stay whole while it can:
              // the error class, or the organization under a project. On phones, with a row to themselves, the organization and
              // project names shown wrap instead, so they stay whole; an error class (event data, any length) is still cut.
              className={cn(
                'min-w-crumb flex shrink items-center gap-1 max-sm:min-w-0',
                // An error class above the event takes only the room "Event" leaves.
                parent && !item.wholeOnPhones && 'max-sm:max-w-fit max-sm:grow max-sm:basis-0',
                item.shrinksFirst && 'sm:max-w-fit sm:grow sm:basis-0',
                narrowHidden && 'max-sm:hidden',
                current && 'font-medium text-foreground [&_a]:text-foreground',
              )}
            >
              {index > 0 ? (
                <ChevronRight
                  aria-hidden="true"
                  className={cn('size-3.5 shrink-0 text-muted-foreground', parent && 'max-sm:hidden')}
                />
              ) : null}
              <span
                className={cn(
                  'max-w-64 truncate',
                  item.wholeOnPhones ? 'max-sm:max-w-full max-sm:whitespace-normal max-sm:[overflow-wrap:anywhere]' : 'max-sm:max-w-full',
                )}
              >
                {item.node}
              </span>
            </li>
          )
        })}
      </ol>
    </nav>
  )
}

/** Remembers the project on screen (once it loaded: not a 404) as the user's last, for the next sign-in. */
function useRememberProject(userId: string | undefined, projectId: string | undefined) {
  const project = useQuery({ ...projectQuery(projectId ?? ''), enabled: Boolean(projectId) })
  const loadedId = project.data?.id
  useEffect(() => {
    if (userId && loadedId && loadedId === projectId) rememberLastProject(userId, loadedId)
  }, [userId, loadedId, projectId])
}

export function AppHeader() {
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const user = useQuery(currentUserQuery())
  const projectId = useParams({ strict: false }).projectId
  useRememberProject(user.data?.id, projectId)

  const signOut = async () => {
    try {
      await logout()
    } catch {
      // The token is forgotten locally whatever the server said.
    }
    queryClient.clear()
    await navigate({ to: '/login', search: {} })
  }

  return (
    <header className="sticky top-0 z-20 border-b border-border bg-surface/95 backdrop-blur">
      <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-3 px-4 sm:h-12 sm:flex-nowrap">
        <Link to="/organizations" className="flex h-12 shrink-0 items-center gap-2 rounded font-semibold">
          <img src="/favicon.svg" alt="" className="size-6" />
          <span className="hidden sm:inline">Errata</span>
          <span className="sr-only sm:hidden">Errata home</span>
        </Link>
        <Breadcrumbs />
        <div className="ml-auto flex shrink-0 items-center gap-1">
          <ProjectSwitcher currentProjectId={projectId} />
          {user.data ? (
            <span className="hidden max-w-48 truncate text-sm text-muted-foreground lg:inline" title={user.data.email}>
              {user.data.email}
            </span>
          ) : null}
          {/* The user's own settings: notifications first, personal tokens beside them (settings-nav.tsx). */}
          <Link
            to="/settings/notifications"
            className={buttonVariants({ variant: 'ghost', size: 'sm' })}
            title="Your settings"
          >
            <UserCog aria-hidden="true" />
            <span className="max-lg:sr-only">Your settings</span>
          </Link>
          <Button variant="ghost" size="sm" onClick={signOut}>
            <LogOut aria-hidden="true" />
            Sign out
          </Button>
        </div>
      </div>
    </header>
  )
}
