// The errors list painted by the page from the first request's answer, before the app's code has
// run: the project's tabs and title, the list's first rows (error-rows.ts), and placeholders where
// the app's controls come, in the app's classes and at the places the app's page puts them (on the
// default view with the trend folded: first-requests.ts decides). The app's first render takes the
// whole shell's place (src/lib/first-paint.ts). A failed or refused request, an empty list or
// anything unexpected in an answer leaves the shell as it was: the app then shows what it shows.
import type { ErrorGroup } from '../../contract/errors.ts'
import { formatCountOf } from '../lib/relative-time.ts'
import { breadcrumbsElement } from './breadcrumbs.ts'
import { errorRowsElement } from './error-rows.ts'
import { readCopy } from './read-copy.ts'

/** index.html's shell: the whole of it, and the part under the header that the errors page replaces. */
export const SHELL_ID = 'first-paint'
const SHELL_PAGE_ID = 'first-paint-page'
/** The place of the header's breadcrumbs (a placeholder on phones until they are painted). */
const SHELL_CRUMBS_ID = 'first-paint-crumbs'

const pulse = (className: string) => {
  const bar = document.createElement('div')
  bar.className = `animate-pulse rounded bg-surface-muted ${className}`
  return bar
}

/** The project's tabs as the app shows them (features/projects/project-nav.tsx); on phones the last ones are under "More". */
const TAB = 'shrink-0 whitespace-nowrap -mb-px rounded-t-md border-b-2 px-3 py-1.5 text-sm font-medium text-muted-foreground'
const TABS: [string, string, boolean][] = [
  ['errors', 'Errors', true],
  ['releases', 'Releases', true],
  ['stability', 'Stability', true],
  ['source-maps', 'Source maps & symbols', false],
  ['webhooks', 'Webhooks', false],
]

function projectTabs(projectId: string): HTMLElement {
  const nav = document.createElement('nav')
  nav.setAttribute('aria-label', 'Project')
  nav.className = 'mb-3 flex gap-1 border-b border-border'
  for (const [path, label, primary] of TABS) {
    const link = document.createElement('a')
    link.href = `/projects/${encodeURIComponent(projectId)}/${path}`
    link.textContent = label
    link.className = `${TAB} ${path === 'errors' ? 'border-accent text-foreground' : 'border-transparent'}${primary ? '' : ' max-sm:hidden'}`
    if (path === 'errors') link.setAttribute('aria-current', 'page')
    nav.append(link)
  }
  return nav
}

/**
 * The classes of the app's page header and its controls (components/ui/page-header.tsx and
 * classes.ts as features/errors/project-errors.tsx uses them; the early script does not load
 * class-variance-authority): a unit test holds them to the app's.
 */
export const headerClasses = {
  header: 'flex flex-wrap justify-between gap-3 mb-3 items-center',
  title: 'text-xl font-semibold tracking-tight [overflow-wrap:anywhere]',
  actions: 'flex flex-wrap items-center gap-2',
  count: 'text-sm text-muted-foreground tabular-nums',
  button:
    'inline-flex shrink-0 items-center justify-center gap-1.5 rounded-md font-medium whitespace-nowrap transition-colors disabled:pointer-events-none disabled:opacity-50 [&_svg]:size-4 [&_svg]:shrink-0 border border-border bg-surface text-foreground hover:bg-surface-muted px-2 text-xs h-8',
  sort: 'flex items-center gap-2',
  sortLabel: 'font-medium text-xs text-muted-foreground',
  sortSelect:
    'min-w-0 rounded-md border border-border bg-surface px-3 text-foreground placeholder:text-muted-foreground aria-invalid:border-danger disabled:opacity-50 pr-8 h-8 w-auto text-xs',
  settings:
    'inline-flex shrink-0 items-center justify-center gap-1.5 rounded-md font-medium whitespace-nowrap transition-colors disabled:pointer-events-none disabled:opacity-50 [&_svg]:size-4 [&_svg]:shrink-0 border border-border bg-surface text-foreground hover:bg-surface-muted h-8 px-2 text-xs',
  settingsText: 'max-sm:sr-only',
}

/** The sort choices' labels, in the app's order (features/errors/error-sort-controls.tsx): the select is as wide as the longest. */
export const SORT_CHOICES = ['Last seen', 'First seen', 'Events', 'Users']

type Children = (Node | string)[]
function element(tag: string, className: string, children: Children = []): HTMLElement {
  const made = document.createElement(tag)
  made.className = className
  made.append(...children)
  return made
}
/** An icon's place: the controls size their svg (`[&_svg]:size-4`). */
const icon = () => document.createElementNS('http://www.w3.org/2000/svg', 'svg')

/**
 * The page's title and its controls as the app lays them out (the title wraps and the controls
 * go to the next line exactly where the app's do, whatever the project's name): the same elements
 * in the same classes, the open errors' count shown, the controls kept unseen and inert until the
 * app's working ones take their place.
 */
function pageHeader(projectName: string, total: number | null, descending: boolean): HTMLElement {
  const select = element('select', headerClasses.sortSelect, SORT_CHOICES.map((label) => element('option', '', [label])))
  const controls = [
    element('span', headerClasses.button, [icon(), 'Show trend']),
    element('div', headerClasses.sort, [
      element('span', headerClasses.sortLabel, ['Sort by']),
      select,
      element('span', headerClasses.button, [icon(), descending ? 'Descending' : 'Ascending']),
    ]),
    element('span', headerClasses.settings, [icon(), element('span', headerClasses.settingsText, ['Project settings'])]),
  ]
  for (const control of controls) control.classList.add('invisible')
  const actions = element('div', headerClasses.actions, [
    ...(total === null ? [] : [element('span', headerClasses.count, [formatCountOf(total, 'open error')])]),
    ...controls,
  ])
  actions.inert = true
  actions.setAttribute('aria-hidden', 'true')
  return element('div', headerClasses.header, [element('div', 'min-w-0', [element('h1', headerClasses.title, [`${projectName}: errors`])]), actions])
}

export interface ShellList {
  errors: readonly ErrorGroup[]
  /** The list's X-Total-Count: the open errors, on the default view. */
  total: number | null
  descending: boolean
  /** Assignees' names by their ids. */
  assignees: ReadonlyMap<string, string>
}

/**
 * The page under the header: the tabs, the title and its controls, the filter bar's place, then
 * the list with its toolbar's place and the rows. The places' heights are the app's at each
 * Tailwind width range, for phones as at 390 px (e2e/first-paint.spec.ts checks the rows sit where
 * the app's do from 360 to 393 px and at 640, 768, 1024, 1280 and 1440 px; between 397 and 639 px,
 * where the app's filter bar and toolbar are lower than these places, nothing is painted: placesMiss).
 */
export function errorsPage(projectId: string, projectName: string, list: ShellList, now: number): HTMLElement {
  const page = document.createElement('div')
  page.id = SHELL_PAGE_ID
  page.className = 'mx-auto w-full max-w-7xl px-4 py-6'
  const toolbar = element('div', 'flex h-[67px] items-center border-b border-border px-4 sm:h-[75px] md:h-[70px] lg:h-[78px]', [pulse('h-5 w-64 max-w-full')])
  const rows = element('div', 'overflow-clip rounded-lg border border-border bg-surface', [toolbar, errorRowsElement(list.errors, projectId, now, list.assignees)])
  const below = element('div', 'flex flex-col gap-3', [pulse('h-[148px] rounded-md sm:h-[74px] md:h-[42px]'), rows])
  page.append(projectTabs(projectId), pageHeader(projectName, list.total, list.descending), below)
  return page
}

const isErrorList = (value: unknown): value is ErrorGroup[] =>
  Array.isArray(value) &&
  value.every((item) => typeof item === 'object' && item !== null && typeof (item as ErrorGroup).id === 'string')

/**
 * The shell's page part, once the parser has reached it. Not DOMContentLoaded: that waits for
 * the app's module scripts to have run, which is what the rows are painted ahead of.
 */
function shellPage(): Promise<HTMLElement | null> {
  const found = document.getElementById(SHELL_PAGE_ID)
  if (found || document.readyState !== 'loading') return Promise.resolve(found)
  return new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      const element = document.getElementById(SHELL_PAGE_ID)
      if (element) {
        observer.disconnect()
        resolve(element)
      }
    })
    observer.observe(document.documentElement, { childList: true, subtree: true })
    document.addEventListener(
      'DOMContentLoaded',
      () => {
        observer.disconnect()
        resolve(document.getElementById(SHELL_PAGE_ID))
      },
      { once: true },
    )
  })
}

/** The names of the people errors are assigned to, as the app's list shows them (features/triage/assignee.tsx: "someone" for one it cannot see). */
export function assigneeNames(errors: readonly ErrorGroup[], collaborators: unknown): Map<string, string> | null {
  if (!Array.isArray(collaborators)) return null
  const names = new Map<string, string>()
  for (const collaborator of collaborators as { id?: unknown; name?: unknown; pending_invitation?: unknown }[]) {
    if (typeof collaborator?.id === 'string' && typeof collaborator.name === 'string' && collaborator.pending_invitation !== true) {
      names.set(collaborator.id, collaborator.name)
    }
  }
  for (const error of errors) {
    if (error.assigned_collaborator_id && !names.has(error.assigned_collaborator_id)) names.set(error.assigned_collaborator_id, 'someone')
  }
  return names
}

export interface ShellRequests {
  /** The project's answer, read. */
  project: Promise<unknown>
  errors: Promise<Response>
  /** The project's collaborators: the assignees' names, needed only when a row has one. */
  collaborators: Promise<Response>
  /** The project's organization, read (null when it could not be asked for): its name for the header. */
  organization: Promise<unknown>
  descending: boolean
}

/**
 * Widths where the app's filter bar and list toolbar wrap onto fewer lines than the places painted
 * for phones (sized as at 390 px): rows painted there would move up when the app takes over, so
 * the plain shell stays instead. Measured with e2e/first-paint.spec.ts: the places match from 360
 * to 396 px and from 640 px up; at 400–600 px the app's rows sit higher.
 */
const placesMiss = () => window.matchMedia?.('(min-width: 397px) and (max-width: 639.98px)').matches ?? false

/** Phones give the breadcrumbs a row of their own, where long names wrap: the rows wait for them there. */
const crumbsMoveTheRows = () => window.matchMedia?.('(max-width: 639.98px)').matches ?? false

/** The header's breadcrumbs, in the shell's header, once the organization's name is in. */
async function paintBreadcrumbs(projectId: string, projectName: string, organization: ShellRequests['organization']): Promise<void> {
  const answer = await organization
  const name = (answer as { name?: unknown } | null)?.name
  const id = (answer as { id?: unknown } | null)?.id
  const place = document.getElementById(SHELL_CRUMBS_ID)
  if (!place || typeof name !== 'string' || typeof id !== 'string') return
  place.replaceWith(breadcrumbsElement({ organizationId: id, organizationName: name, projectId, projectName }))
}

/**
 * Paints the errors page into the shell when the answers are in, unless the app got there first.
 * Settles once painted or given up (a failed request, an empty list, …).
 */
export function paintErrorsShell(projectId: string, requests: ShellRequests): Promise<void> {
  const total = requests.errors.then((response) => Number.parseInt(response.headers.get('X-Total-Count') ?? '', 10)).catch(() => Number.NaN)
  const answers = Promise.all([requests.project, readCopy(requests.errors), total])
  const collaborators = readCopy(requests.collaborators)
  return answers.then(async ([projectAnswer, errorsAnswer, totalCount]) => {
    const name = (projectAnswer as { name?: unknown } | null)?.name
    if (typeof name !== 'string' || !isErrorList(errorsAnswer) || errorsAnswer.length === 0 || placesMiss()) return
    // The app's rows name their assignees from the first render on (the route asks for the
    // collaborators with the list): the shell's rows wait for them too, or the lines would change.
    const assigned = errorsAnswer.some((error) => error.assigned_collaborator_id)
    const assignees = assigned ? assigneeNames(errorsAnswer, await collaborators) : new Map<string, string>()
    if (!assignees) return
    await shellPage()
    const crumbs = paintBreadcrumbs(projectId, name, requests.organization).catch(() => undefined)
    if (crumbsMoveTheRows()) await crumbs
    // Looked up again: the app may have taken the shell away meanwhile.
    const shell = document.getElementById(SHELL_PAGE_ID)
    if (!shell) return
    try {
      const list = { errors: errorsAnswer, total: Number.isNaN(totalCount) ? null : totalCount, descending: requests.descending, assignees }
      shell.replaceWith(errorsPage(projectId, name, list, Date.now()))
    } catch {
      // Something in the answer the rows could not show: the plain shell stays until the app runs.
    }
  })
}
