import { screen, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { collaborator, errorGroup, project } from '../test/fixtures.ts'
import { json, mockApi } from '../test/mock-api.ts'
import { renderApp } from '../test/render-app.tsx'
import { errorRowsElement } from './error-rows.ts'
import { assigneeNames, errorsPage, headerClasses } from './errors-shell.ts'

// The rows the page paints before the app runs must read as the app's rows do, and be laid out by
// the same classes, so the app's list takes their place unnoticed (e2e/first-paint.spec.ts checks
// the places in a real browser).
const errors = [
  errorGroup(),
  errorGroup({ id: 'e2', error_class: 'RangeError', message: '', context: null, severity: 'warning', unhandled: false, events: 1, users: 1 }),
  errorGroup({
    id: 'e3',
    error_class: '',
    status: 'snoozed',
    reopen_rules: { reopen_if: 'n_additional_occurrences', additional_occurrences: 10, events_at_snooze: 1230, snoozed_at: '2026-11-21T10:00:00.000Z' },
    release_stages: ['production', 'staging', 'beta'],
    app_versions: ['1.0.0', '1.1.0', '2.0.0'],
  }),
  errorGroup({ id: 'e4', error_class: 'Error', message: '<b>not markup</b> & more', status: 'fixed', release_stages: [], app_versions: [], matching_events: 12 }),
  errorGroup({ id: 'e5', error_class: 'TypeError', assigned_collaborator_id: 'u2' }),
  // Assigned to someone the user cannot see (no longer a collaborator).
  errorGroup({ id: 'e6', error_class: 'SyntaxError', assigned_collaborator_id: 'u9' }),
]
const collaborators = [collaborator(), collaborator({ id: 'u3', name: 'Invited', pending_invitation: true })]

/**
 * Each element of a row as its tag and classes (in any order), without the parts the early rows
 * leave out or keep empty: the checkbox (an empty place of its size), the sparkline's chart.
 */
function layoutOf(row: Element): string[] {
  return [...row.querySelectorAll('*')]
    .filter((element) => !element.closest('svg') && !element.matches('input, span.z-10') && !element.parentElement?.matches('.lg\\:flex'))
    .map((element) => `${element.tagName.toLowerCase()} ${[...element.classList].sort().join(' ')}`)
}

describe('the errors list’s first rows, painted before the app runs', () => {
  it('say what the app’s rows say, in the same elements and classes', async () => {
    mockApi({
      'GET /api/projects/p1': project(),
      'GET /api/user': { id: 'u1', name: 'Admin', email: 'admin@example.com', created_at: '2026-01-01T00:00:00Z' },
      'GET /api/projects/p1/errors': json(errors, { headers: { 'X-Total-Count': String(errors.length) } }),
      'GET /api/projects/p1/collaborators': collaborators,
    })
    renderApp('/projects/p1/errors')
    const list = await screen.findByRole('list', { name: 'Errors' })
    await within(list).findByText('Ada Lovelace')
    const appRows = within(list).getAllByRole('listitem')
    expect(appRows).toHaveLength(errors.length)

    const early = errorRowsElement(errors, 'p1', Date.now(), assigneeNames(errors, collaborators)!)
    const earlyRows = [...early.querySelectorAll('[role="listitem"]')]
    expect(earlyRows).toHaveLength(errors.length)
    earlyRows.forEach((earlyRow, index) => {
      const appRow = appRows[index]!
      expect(earlyRow.textContent, `row ${index + 1}`).toBe(appRow.textContent)
      expect(layoutOf(earlyRow), `row ${index + 1}`).toEqual(layoutOf(appRow))
      // The same link: a click before the app runs opens the same error page.
      expect(earlyRow.querySelector('a')?.getAttribute('href')).toBe(appRow.querySelector('a')?.getAttribute('href'))
    })
  })

  it('hold event data as text', () => {
    const early = errorRowsElement([errorGroup({ message: '<img src=x onerror=alert(1)>', context: '<script>x</script>' })], 'p1', Date.now())
    expect(early.querySelector('img, script')).toBeNull()
    expect(early.textContent).toContain('<img src=x onerror=alert(1)>')
  })
})

describe('the errors page’s title and controls, painted before the app runs', () => {
  it('are laid out by the app’s elements and classes, so a long title wraps as the app’s does', async () => {
    mockApi({
      'GET /api/projects/p1': project(),
      'GET /api/user': { id: 'u1', name: 'Admin', email: 'admin@example.com', created_at: '2026-01-01T00:00:00Z' },
      'GET /api/projects/p1/errors': json(errors, { headers: { 'X-Total-Count': '1204' } }),
    })
    renderApp('/projects/p1/errors')
    const heading = await screen.findByRole('heading', { level: 1, name: 'checkout-api: errors' })
    const trend = screen.getByRole('button', { name: 'Show trend' })
    const select = screen.getByRole('combobox', { name: 'Sort by' })
    const app = {
      header: heading.parentElement!.parentElement!,
      title: heading,
      actions: trend.parentElement!,
      count: screen.getByText('1,204 open errors'),
      button: trend,
      sort: select.parentElement!,
      sortLabel: screen.getByText('Sort by'),
      sortSelect: select,
      settings: screen.getByRole('link', { name: 'Project settings' }),
      settingsText: screen.getByText('Project settings'),
    }
    const shell = errorsPage('p1', 'checkout-api', { errors, total: 1204, descending: true, assignees: new Map() }, Date.now())
    const shellHeading = shell.querySelector('h1')!
    const shellActions = shellHeading.parentElement!.nextElementSibling!
    expect(shellHeading.textContent).toBe(heading.textContent)
    expect(shellHeading.parentElement!.className).toBe(heading.parentElement!.className)
    const classes = (element: Element) => [...element.classList].filter((name) => name !== 'invisible').sort()
    for (const [name, element] of Object.entries(app)) {
      expect(classes(element), name).toEqual([...headerClasses[name as keyof typeof headerClasses].split(' ')].sort())
    }
    // The same texts in the same order: the controls take the app's widths.
    expect(shellActions.textContent).toBe(app.actions.textContent)
    expect([...shell.querySelectorAll('option')].map((option) => option.textContent)).toEqual(
      [...select.querySelectorAll('option')].map((option) => option.textContent),
    )
  })
})
