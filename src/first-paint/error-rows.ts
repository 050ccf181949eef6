// The errors list's rows as plain DOM, for the page's first paint before the app's code has run
// (first-requests.ts): the same texts (error-row-text.ts, lib/relative-time.ts) in the same
// classes as the app's row (features/errors/error-row.tsx), so the app's list takes their place
// without moving them. Event data is untrusted: every text goes in as a text node.
import type { ErrorGroup, Severity } from '../../contract/errors.ts'
import {
  errorRowText,
  rowClasses,
  severityClass,
  severityDotClass,
  statusBadgeClass,
} from '../features/errors/error-row-text.ts'
import { formatCount, formatExactTime, formatRelativeTime } from '../lib/relative-time.ts'

/**
 * Makes the formatters the rows use (lib/relative-time.ts makes each on first use): called while
 * the first answers are on their way, when the main thread waits for the network, instead of when
 * the rows are painted (making them took 22 / 45 / 167 ms, min / median / max, in a new page).
 */
export function prepareRowFormatters(now = Date.now()): void {
  const iso = new Date(now).toISOString()
  formatRelativeTime(iso, now)
  formatExactTime(iso)
  formatCount(1)
}

type Child = Node | string | null

function el(tag: string, className: string | null, children: Child[] = [], attributes: Record<string, string | undefined> = {}): HTMLElement {
  const element = document.createElement(tag)
  if (className) element.className = className
  for (const [name, value] of Object.entries(attributes)) if (value !== undefined) element.setAttribute(name, value)
  for (const child of children) if (child !== null) element.append(child)
  return element
}

const srOnly = (text: string) => el('span', 'sr-only', [text])

function time(iso: string, now: number): HTMLElement {
  return el('time', rowClasses.time, [formatRelativeTime(iso, now)], { datetime: iso, title: formatExactTime(iso) })
}

/** The severity's word and dot; the meta line's is shown from md only (`inline-flex` there, as SeverityIndicator's `fromMd` gives it). */
function severity(value: Severity, fromMd: boolean): HTMLElement {
  const className = fromMd ? `${severityClass.replace('inline-flex ', '')} hidden shrink-0 md:inline-flex` : severityClass
  return el('span', className, [el('span', severityDotClass(value), [], { 'aria-hidden': 'true' }), value])
}

const SVG = 'http://www.w3.org/2000/svg'
/** lucide's UserRound, as the app's AssigneeLabel shows it (features/triage/assignee.tsx). */
function userRoundIcon(): SVGElement {
  const svg = document.createElementNS(SVG, 'svg')
  const attributes = { xmlns: SVG, width: '24', height: '24', viewBox: '0 0 24 24', fill: 'none', stroke: 'currentColor', 'stroke-width': '2', 'stroke-linecap': 'round', 'stroke-linejoin': 'round', class: assigneeClasses.icon, 'aria-hidden': 'true' }
  for (const [name, value] of Object.entries(attributes)) svg.setAttribute(name, value)
  const circle = document.createElementNS(SVG, 'circle')
  for (const [name, value] of Object.entries({ cx: '12', cy: '8', r: '5' })) circle.setAttribute(name, value)
  const path = document.createElementNS(SVG, 'path')
  path.setAttribute('d', 'M20 21a8 8 0 0 0-16 0')
  svg.append(circle, path)
  return svg
}

/** The classes of the app's AssigneeLabel. */
export const assigneeClasses = { label: 'inline-flex min-w-0 items-center gap-1 text-xs text-muted-foreground', icon: 'lucide lucide-user-round size-3.5 shrink-0', name: 'truncate' }

function assigneeLabel(name: string): HTMLElement {
  return el('span', assigneeClasses.label, [userRoundIcon(), srOnly('Assigned to '), el('span', assigneeClasses.name, [name])])
}

/** The error page's address, as the app's row links to it (the default list has no event filters to pass on). */
export const errorHref = (projectId: string, errorId: string): string =>
  `/projects/${encodeURIComponent(projectId)}/errors/${encodeURIComponent(errorId)}`

/** One row: what the app's ErrorRow shows, its link a real one (a click before the app runs opens the error page). */
export function errorRowElement(error: ErrorGroup, projectId: string, index: number, now: number, assignee: string | null = null): HTMLElement {
  const text = errorRowText(error)
  const messageId = `error-message-${error.id}`
  const meta = el('div', rowClasses.meta, [
    el('span', statusBadgeClass(error.status), [el('span', 'truncate', [text.status])], { title: text.statusTitle }),
    severity(error.severity, true),
    el('span', text.handled === 'unhandled' ? rowClasses.unhandled : rowClasses.handled, [text.handled]),
    text.releaseStages
      ? el('span', rowClasses.releaseStages, [srOnly('release stages '), text.releaseStages.text], { title: text.releaseStages.title })
      : null,
    text.appVersions ? el('span', rowClasses.appVersions, [srOnly('app versions '), text.appVersions.text], { title: text.appVersions.title }) : null,
    assignee === null ? null : assigneeLabel(assignee),
    text.context ? el('span', rowClasses.context, [srOnly('context '), text.context], { title: text.context }) : null,
  ])
  const events =
    text.matching === null
      ? el('p', rowClasses.count, [text.events, srOnly(' events')])
      : el('p', rowClasses.count, [text.matching, srOnly(' matching events '), el('span', rowClasses.countNote, ['of ', text.events, srOnly(' in all')])])
  const body = el('div', rowClasses.body, [
    el('div', 'min-w-0', [
      el('div', rowClasses.title, [
        el('a', rowClasses.link, [text.errorClass], { href: errorHref(projectId, error.id), 'data-row-index': String(index), 'aria-describedby': messageId }),
        el('p', rowClasses.message, [text.message ?? el('span', rowClasses.noMessage, ['(no message)'])], { id: messageId, title: error.message ?? undefined }),
      ]),
      meta,
    ]),
    el('p', rowClasses.narrowMeta, [
      severity(error.severity, false),
      el('span', null, [text.narrowEvents]),
      el('span', null, [text.narrowUsers]),
      el('span', null, ['last ', time(error.last_seen, now)]),
      el('span', null, ['first ', time(error.first_seen, now)]),
    ]),
    el('div', rowClasses.sparkline),
    events,
    el('p', rowClasses.count, [text.users, srOnly(' users'), text.matching === null ? null : el('span', rowClasses.countNote, [' all time'])]),
    el('p', rowClasses.firstSeen, [srOnly('first seen '), time(error.first_seen, now)]),
    el('p', rowClasses.lastSeen, [srOnly('last seen '), time(error.last_seen, now)]),
  ])
  // The checkbox's place, empty: selecting needs the app.
  const row = el('div', rowClasses.row, [el('span', rowClasses.checkbox, [], { 'aria-hidden': 'true' }), body])
  return el('div', rowClasses.item, [row], { role: 'listitem', 'aria-setsize': undefined })
}

/** The list of rows, as the app's list is named ("Errors"). */
export function errorRowsElement(
  errors: readonly ErrorGroup[],
  projectId: string,
  now: number,
  assignees: ReadonlyMap<string, string> = new Map(),
): HTMLElement {
  return el(
    'div',
    null,
    errors.map((error, index) =>
      errorRowElement(error, projectId, index, now, error.assigned_collaborator_id ? (assignees.get(error.assigned_collaborator_id) ?? null) : null),
    ),
    { role: 'list', 'aria-label': 'Errors' },
  )
}
