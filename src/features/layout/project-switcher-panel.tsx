import { useQueries, useQuery } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import { Check, Search } from 'lucide-react'
import { useState } from 'react'
import type * as React from 'react'
import { organizationsQuery } from '../../api/organizations.ts'
import { projectsQuery } from '../../api/projects.ts'
import { Input } from '../../components/ui/input.tsx'
import { Skeleton } from '../../components/ui/skeleton.tsx'
import { ErrorState } from '../../components/ui/states.tsx'
import { cn } from '../../lib/cn.ts'
import { toProjectChoices } from './to-project-choices.ts'

/** Moves focus among the panel's search field and project links with the arrow keys, Home and End. */
function moveFocus(panel: HTMLElement, event: React.KeyboardEvent) {
  const stops = [...panel.querySelectorAll<HTMLElement>('input, a[data-project]')]
  const at = stops.indexOf(document.activeElement as HTMLElement)
  const keys: Record<string, number> = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: stops.length - 1 }
  // In the search field Home and End move the caret.
  if (at === 0 && (event.key === 'Home' || event.key === 'End')) return
  const next = keys[event.key]
  if (next === undefined || stops.length === 0) return
  event.preventDefault()
  stops[Math.min(Math.max(next, 0), stops.length - 1)]?.focus()
}

/** Every project the user can open, by organization, with a search field; loaded when opened. */
export function SwitcherPanel({ id, currentProjectId, onClose }: { id: string; currentProjectId: string | undefined; onClose: () => void }) {
  const [search, setSearch] = useState('')
  const navigate = useNavigate()
  const organizations = useQuery(organizationsQuery())
  const projects = useQueries({
    queries: (organizations.data ?? []).map((organization) => projectsQuery(organization.id)),
  })
  const failed = organizations.error ?? projects.find((query) => query.isError)?.error
  const pending = organizations.isPending || projects.some((query) => query.isPending)
  const groups = toProjectChoices(
    (organizations.data ?? []).map((organization, index) => ({
      organization,
      projects: projects[index]?.data ?? [],
    })),
    search,
  )
  // Enter in the search field opens the one project left, as a search box that narrowed to one result should.
  const onlyMatch = search.trim() && groups.length === 1 && groups[0]!.projects.length === 1 ? groups[0]!.projects[0]! : null
  const total = (organizations.data ?? []).reduce((sum, _organization, index) => sum + (projects[index]?.data?.length ?? 0), 0)

  let body: React.ReactNode
  if (failed) {
    body = (
      <ErrorState
        title="Could not load your projects"
        error={failed}
        onRetry={() => {
          void organizations.refetch()
          for (const query of projects) if (query.isError) void query.refetch()
        }}
      />
    )
  } else if (pending) {
    body = (
      <div role="status" className="flex flex-col gap-2 p-2">
        <span className="sr-only">Loading projects</span>
        {Array.from({ length: 3 }, (_, index) => (
          <Skeleton key={index} className="h-7 w-full" />
        ))}
      </div>
    )
  } else if (total === 0) {
    body = (
      <p className="p-3 text-sm text-muted-foreground">
        No projects yet.{' '}
        <Link to="/organizations" className="text-accent underline underline-offset-2" onClick={onClose}>
          Create one in an organization
        </Link>
      </p>
    )
  } else if (groups.length === 0) {
    body = <p className="p-3 text-sm text-muted-foreground">No project matches “{search}”.</p>
  } else {
    body = groups.map((group) => (
      <section key={group.organization.id} aria-labelledby={`${id}-org-${group.organization.id}`} className="py-1">
        <h2 id={`${id}-org-${group.organization.id}`} className="px-3 py-1 text-xs font-medium text-muted-foreground [overflow-wrap:anywhere]">
          {group.organization.name}
        </h2>
        <ul>
          {group.projects.map((project) => {
            const current = project.id === currentProjectId
            return (
              <li key={project.id}>
                <Link
                  to="/projects/$projectId/errors"
                  params={{ projectId: project.id }}
                  data-project=""
                  aria-current={current ? 'true' : undefined}
                  onClick={onClose}
                  className={cn(
                    'flex items-center gap-2 rounded-md px-3 py-1.5 text-sm [overflow-wrap:anywhere] hover:bg-surface-muted focus-visible:bg-surface-muted focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-accent',
                    current && 'font-medium',
                  )}
                >
                  <span className="min-w-0 flex-1">{project.name}</span>
                  {current ? <Check aria-label="current project" className="size-4 shrink-0 text-accent" /> : null}
                </Link>
              </li>
            )
          })}
        </ul>
      </section>
    ))
  }

  return (
    <div
      id={id}
      role="dialog"
      aria-label="Switch project"
      // Under the button; on phones across the width under the header's first row (the button is
      // not at the edge there, so a right-aligned panel would run off the screen).
      className="z-30 flex max-h-[min(28rem,70dvh)] flex-col rounded-lg border border-border bg-surface shadow-lg max-sm:fixed max-sm:inset-x-4 max-sm:top-12 sm:absolute sm:top-full sm:right-0 sm:mt-1 sm:w-88"
      onKeyDown={(event) => moveFocus(event.currentTarget, event)}
    >
      <div className="relative border-b border-border p-2">
        <Search aria-hidden="true" className="pointer-events-none absolute top-1/2 left-4 size-4 -translate-y-1/2 text-muted-foreground" />
        <Input
          type="search"
          aria-label="Find a project"
          placeholder="Find a project…"
          autoFocus
          autoComplete="off"
          className="pl-8"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
          onKeyDown={(event) => {
            if (event.key !== 'Enter' || !onlyMatch) return
            event.preventDefault()
            onClose()
            void navigate({ to: '/projects/$projectId/errors', params: { projectId: onlyMatch.id } })
          }}
          aria-describedby={onlyMatch ? `${id}-only-match` : undefined}
        />
        {onlyMatch ? (
          <p id={`${id}-only-match`} className="sr-only">
            Enter opens {onlyMatch.name}
          </p>
        ) : null}
      </div>
      <div className="overflow-y-auto p-1">{body}</div>
    </div>
  )
}
