import { screen, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { errorGroup, organization, project } from '../test/fixtures.ts'
import { json, mockApi } from '../test/mock-api.ts'
import { renderApp } from '../test/render-app.tsx'
import { breadcrumbsElement } from './breadcrumbs.ts'

/** Each element as its tag, classes (in any order), link and own text. */
const layoutOf = (root: Element) =>
  [root, ...root.querySelectorAll('*')].map((element) =>
    [
      element.tagName.toLowerCase(),
      [...element.classList].sort().join(' '),
      element.getAttribute('href') ?? '',
      element.getAttribute('aria-current') ?? '',
      [...element.childNodes].filter((node) => node.nodeType === Node.TEXT_NODE).map((node) => node.textContent).join(''),
    ].join(' | '),
  )

describe('the header’s breadcrumbs, painted before the app runs', () => {
  it('are the app’s, element for element: long names wrap on phones as the app’s do', async () => {
    const longName = 'A project with a name long enough to wrap on a phone '.repeat(3).trim()
    mockApi({
      'GET /api/user': { id: 'u1', name: 'Admin', email: 'admin@example.com', created_at: '2026-01-01T00:00:00Z' },
      'GET /api/projects/p1': project({ name: longName }),
      'GET /api/organizations/org1': organization({ name: 'Acme <b>Inc.</b>' }),
      'GET /api/projects/p1/errors': json([errorGroup()], { headers: { 'X-Total-Count': '1' } }),
    })
    renderApp('/projects/p1/errors')
    const nav = await screen.findByRole('navigation', { name: 'Breadcrumbs' })
    await within(nav).findByText('Acme <b>Inc.</b>')
    await within(nav).findByText(longName)
    const early = breadcrumbsElement({ organizationId: 'org1', organizationName: 'Acme <b>Inc.</b>', projectId: 'p1', projectName: longName })
    expect(layoutOf(early)).toEqual(layoutOf(nav))
    expect(early.querySelector('b')).toBeNull()
  })
})
