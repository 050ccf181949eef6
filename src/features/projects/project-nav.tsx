import { Link, useMatchRoute } from '@tanstack/react-router'
import { ChevronDown } from 'lucide-react'
import { useLayoutEffect, useRef } from 'react'
import { cn } from '../../lib/cn.ts'
import { usePopover } from '../../lib/use-popover.ts'
import { useIsProjectAdmin } from '../collaborators/use-is-admin.ts'

// The bar's bottom line is an inset shadow the tabs paint over: a border would sit outside the
// scrolling row, which clips whatever reaches below it.
const barLine = 'shadow-[inset_0_-1px_0_var(--color-border)]'
const tabBase =
  'shrink-0 whitespace-nowrap rounded-t-md border-b-2 px-3 py-1.5 text-sm font-medium hover:text-foreground focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-accent'
const activeTab = 'border-accent text-foreground'
const inactiveTab = 'border-transparent text-muted-foreground'

/** A project's pages. The first three are what triage needs; on phones the others sit under "More". */
const PAGES = [
  { to: '/projects/$projectId/errors', label: 'Errors', primary: true },
  { to: '/projects/$projectId/releases', label: 'Releases', primary: true },
  { to: '/projects/$projectId/stability', label: 'Stability', primary: true },
  { to: '/projects/$projectId/source-maps', label: 'Source maps & symbols', primary: false },
  { to: '/projects/$projectId/webhooks', label: 'Webhooks', primary: false },
  { to: '/projects/$projectId/privacy', label: 'Privacy', primary: false, adminOnly: true },
  { to: '/projects/$projectId/settings', label: 'Settings', primary: false },
] as const

type Page = (typeof PAGES)[number]
export type ProjectPage = Page['to']

/**
 * Phones: the pages that do not fit beside the first three, behind a disclosure button (marked
 * as current when one of them is the page on screen). Escape, a click outside or moving the focus
 * away closes it.
 */
function MorePages({ projectId, pages, current }: { projectId: string; pages: readonly Page[]; current: Page | undefined }) {
  const { open, setOpen, id, buttonRef, rootProps } = usePopover()
  return (
    <div {...rootProps} className="relative sm:hidden">
      <button
        ref={buttonRef}
        type="button"
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen((value) => !value)}
        className={cn(tabBase, 'flex items-center gap-1', current ? activeTab : inactiveTab)}
      >
        More
        {current ? <span className="sr-only">(current page: {current.label})</span> : null}
        <ChevronDown aria-hidden="true" className={cn('size-4 transition-transform', open && 'rotate-180')} />
      </button>
      <ul
        id={id}
        hidden={!open}
        className="absolute top-full right-0 z-30 mt-1 w-56 rounded-lg border border-border bg-surface p-1 shadow-lg"
      >
        {pages.map((page) => (
          <li key={page.to}>
            <Link
              to={page.to}
              params={{ projectId }}
              onClick={() => setOpen(false)}
              className={cn(
                'block rounded-md px-3 py-2 text-sm hover:bg-surface-muted focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-accent',
                page === current ? 'font-medium text-foreground' : 'text-muted-foreground',
              )}
              aria-current={page === current ? 'page' : undefined}
            >
              {page.label}
            </Link>
          </li>
        ))}
      </ul>
    </div>
  )
}

/**
 * Where the tab row was scrolled: every project page renders its own bar, and the next one takes
 * up the row where the last left it (then brings the current tab into view if it is not).
 */
let tabRowScroll = 0

/**
 * A project's pages: its errors, its releases, its stability (crash-free sessions over a period),
 * its source maps and symbols, its webhooks, for admins its privacy requests, and its settings.
 * Every page of the project as a whole shows it in the same place (not an error's pages: its first
 * screen is for the error), the current one marked and in view. On phones the last ones are under "More"; where
 * the row is still too narrow for its tabs (just above phone width), the row scrolls sideways, not the page.
 */
const NAV_SPACING = { page: 'mb-4', compact: 'mb-3', none: '' } as const

/**
 * `spacing`: the margin under it; `none` where the page's layout spaces it. `current`: the tab to
 * mark where the address is not under it (a project's pivot values belong to its errors).
 */
export function ProjectNav({
  projectId,
  spacing = 'page',
  current: currentOverride,
}: {
  projectId: string
  spacing?: keyof typeof NAV_SPACING
  current?: ProjectPage
}) {
  const isAdmin = useIsProjectAdmin(projectId)
  const matchRoute = useMatchRoute()
  const pages = PAGES.filter((page) => !('adminOnly' in page) || isAdmin)
  const secondary = pages.filter((page) => !page.primary)
  const current = pages.find((page) =>
    currentOverride ? page.to === currentOverride : matchRoute({ to: page.to, params: { projectId }, fuzzy: true }),
  )
  const currentSecondary = current && !current.primary ? current : undefined
  const rowRef = useRef<HTMLDivElement>(null)
  const currentPath = current?.to
  useLayoutEffect(() => {
    const row = rowRef.current
    if (!row) return
    row.scrollLeft = tabRowScroll
    const current = row.querySelector<HTMLElement>('[aria-current="page"]')
    if (!current) return
    // Not scrollIntoView: that could scroll the page too.
    const left = current.offsetLeft - row.offsetLeft
    if (left < row.scrollLeft) row.scrollLeft = left
    else if (left + current.offsetWidth > row.scrollLeft + row.clientWidth) row.scrollLeft = left + current.offsetWidth - row.clientWidth
    tabRowScroll = row.scrollLeft
  }, [currentPath, isAdmin])
  return (
    <nav aria-label="Project" className={cn('flex', barLine, NAV_SPACING[spacing])}>
      <div
        ref={rowRef}
        className="flex min-w-0 gap-1 overflow-x-auto [scrollbar-width:thin]"
        onScroll={(event) => {
          tabRowScroll = event.currentTarget.scrollLeft
        }}
      >
        {pages.map((page) => (
          <Link
            key={page.to}
            to={page.to}
            params={{ projectId }}
            // On phones the secondary pages are in "More" instead (one link each in the tab order there).
            className={cn(tabBase, !page.primary && 'max-sm:hidden', page === current ? activeTab : inactiveTab)}
            aria-current={page === current ? 'page' : undefined}
          >
            {page.label}
          </Link>
        ))}
      </div>
      <MorePages projectId={projectId} pages={secondary} current={currentSecondary} />
    </nav>
  )
}
