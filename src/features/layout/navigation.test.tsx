import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { Stability } from '../../../contract/stability.ts'
import { readLastProject, rememberLastProject } from '../../lib/last-project.ts'
import { organization, project } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'
import { toProjectChoices } from './to-project-choices.ts'

const user = { id: 'u1', name: 'Admin', email: 'admin@example.com', created_at: '2026-01-01T00:00:00Z' }
const acme = organization()
const globex = organization({ id: 'org2', name: 'Globex', slug: 'globex' })
const stability: Stability = { total: { sessions: 10, crashed_sessions: 1, crash_free_rate: 0.9, first_seen: '2026-01-01T00:00:00.000Z' }, releases: [] }

const routes = {
  'GET /api/user': user,
  'GET /api/user/invitations': [],
  'GET /api/user/organizations': [acme, globex],
  'GET /api/organizations/org1': acme,
  'GET /api/organizations/org1/collaborators': [],
  'GET /api/organizations/org1/projects': [project(), project({ id: 'p2', name: 'billing-web' })],
  'GET /api/organizations/org2/projects': [project({ id: 'p3', organization_id: 'org2', name: 'Café mobile' })],
  'GET /api/projects/p1': project(),
  'GET /api/projects/p1/stability': stability,
  // The errors page sign-in lands on.
  'GET /api/projects/p1/errors': [],
  'GET /api/projects/p1/trend': [],
  'GET /api/projects/p1/event_fields': [],
  'GET /api/projects/p1/collaborators': [],
}

describe('toProjectChoices', () => {
  const groups = [
    { organization: acme, projects: [{ id: 'p1', name: 'checkout-api' }, { id: 'p2', name: 'billing-web' }] },
    { organization: globex, projects: [{ id: 'p3', name: 'Café mobile' }] },
  ]
  it('sorts each organization’s projects and matches every word typed in the project or organization name', () => {
    expect(toProjectChoices(groups, '').map((group) => group.projects.map((p) => p.name))).toEqual([['billing-web', 'checkout-api'], ['Café mobile']])
    expect(toProjectChoices(groups, 'cafe').map((group) => group.organization.name)).toEqual(['Globex'])
    expect(toProjectChoices(groups, 'acme web')).toEqual([{ organization: acme, projects: [{ id: 'p2', name: 'billing-web' }] }])
    expect(toProjectChoices(groups, 'nothing')).toEqual([])
  })
})

describe('project switcher', { timeout: 20_000 }, () => {
  it('opens from the keyboard, lists every project by organization, filters as you type, and closes with Escape', async () => {
    mockApi(routes)
    renderApp('/projects/p1/stability')
    const button = await screen.findByRole('button', { name: 'Projects' })
    expect(button).toHaveAttribute('aria-expanded', 'false')
    button.focus()
    await userEvent.keyboard('{Enter}')
    const panel = await screen.findByRole('dialog', { name: 'Switch project' })
    const search = within(panel).getByRole('searchbox', { name: 'Find a project' })
    expect(search).toHaveFocus()
    const acmeGroup = await within(panel).findByRole('region', { name: 'Acme Inc.' })
    expect(within(acmeGroup).getAllByRole('link').map((link) => link.textContent)).toEqual(['billing-web', 'checkout-api'])
    // The project on screen is marked.
    expect(within(acmeGroup).getByRole('link', { name: /checkout-api/ })).toHaveAttribute('aria-current', 'true')
    expect(within(panel).getByRole('region', { name: 'Globex' })).toHaveTextContent('Café mobile')

    await userEvent.type(search, 'cafe')
    expect(within(panel).queryByRole('region', { name: 'Acme Inc.' })).not.toBeInTheDocument()
    await userEvent.keyboard('{ArrowDown}')
    const cafe = within(panel).getByRole('link', { name: 'Café mobile' })
    expect(cafe).toHaveFocus()
    expect(cafe).toHaveAttribute('href', '/projects/p3/errors')
    await userEvent.keyboard('{ArrowUp}')
    expect(search).toHaveFocus()

    await userEvent.type(search, ' nothing')
    expect(within(panel).getByText('No project matches “cafe nothing”.')).toBeInTheDocument()

    await userEvent.keyboard('{Escape}')
    expect(screen.queryByRole('dialog', { name: 'Switch project' })).not.toBeInTheDocument()
    expect(button).toHaveFocus()
    expect(button).toHaveAttribute('aria-expanded', 'false')
  })
})

describe('project switcher: Enter', { timeout: 20_000 }, () => {
  it('opens the only project the search left', async () => {
    mockApi({ ...routes, 'GET /api/projects/p3': project({ id: 'p3', organization_id: 'org2', name: 'Café mobile' }), 'GET /api/organizations/org2': globex,
      'GET /api/projects/p3/errors': [],
      'GET /api/projects/p3/trend': [],
      'GET /api/projects/p3/event_fields': [],
      'GET /api/projects/p3/collaborators': [],
    })
    const { router } = renderApp('/projects/p1/stability')
    await userEvent.click(await screen.findByRole('button', { name: 'Projects' }))
    const panel = await screen.findByRole('dialog', { name: 'Switch project' })
    const search = within(panel).getByRole('searchbox', { name: 'Find a project' })
    await within(panel).findByRole('region', { name: 'Globex' })
    // Two matches: Enter does nothing.
    await userEvent.type(search, 'acme')
    await userEvent.keyboard('{Enter}')
    expect(router.state.location.pathname).toBe('/projects/p1/stability')
    await userEvent.clear(search)
    await userEvent.type(search, 'cafe{Enter}')
    await waitFor(() => expect(router.state.location.pathname).toBe('/projects/p3/errors'))
    expect(screen.queryByRole('dialog', { name: 'Switch project' })).not.toBeInTheDocument()
  })
})

describe('the last project', { timeout: 20_000 }, () => {
  it('is remembered per user once a project page has loaded', async () => {
    mockApi(routes)
    renderApp('/projects/p1/stability')
    await screen.findByRole('heading', { level: 1, name: 'checkout-api: stability' })
    await waitFor(() => expect(readLastProject('u1')).toBe('p1'))
    expect(readLastProject('u2')).toBeNull()
  })

  it('is where sign-in lands when no page was asked for', async () => {
    rememberLastProject('u1', 'p1')
    mockApi({ ...routes, 'POST /api/auth/login': { token: 'fresh-token', user } })
    const { router } = renderApp('/login', { token: null })
    await userEvent.type(await screen.findByLabelText('Email'), 'admin@example.com')
    await userEvent.type(screen.getByLabelText('Password'), 'correct-horse')
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/projects/p1/errors'))
  })

  it('is forgotten when it is gone, and sign-in shows the organization picker', async () => {
    rememberLastProject('u1', 'p9')
    mockApi({
      ...routes,
      'POST /api/auth/login': { token: 'fresh-token', user },
      'GET /api/projects/p9': json({ errors: ['Project not found'] }, { status: 404 }),
    })
    const { router } = renderApp('/login', { token: null })
    await userEvent.type(await screen.findByLabelText('Email'), 'admin@example.com')
    await userEvent.type(screen.getByLabelText('Password'), 'correct-horse')
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }))
    await waitFor(() => expect(router.state.location.pathname).toMatch(/^\/organizations\/?$/))
    expect(readLastProject('u1')).toBeNull()
  })
})

describe('page not found', { timeout: 20_000 }, () => {
  it('keeps the app header when signed in', async () => {
    mockApi(routes)
    renderApp('/no/such/page')
    expect(await screen.findByRole('heading', { level: 1, name: 'Page not found' })).toBeInTheDocument()
    const banner = screen.getByRole('banner')
    expect(within(banner).getByRole('navigation', { name: 'Breadcrumbs' })).toBeInTheDocument()
    expect(within(banner).getByRole('button', { name: 'Projects' })).toBeInTheDocument()
    expect(within(banner).getByRole('button', { name: 'Sign out' })).toBeInTheDocument()
    expect(screen.getByRole('main')).toHaveTextContent('There is no page at /no/such/page.')
  })

  it('has a header with the way to sign in when signed out', async () => {
    mockApi({})
    renderApp('/no/such/page', { token: null })
    expect(await screen.findByRole('heading', { level: 1, name: 'Page not found' })).toBeInTheDocument()
    expect(within(screen.getByRole('banner')).getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/login')
  })
})

describe('project pages navigation', { timeout: 20_000 }, () => {
  it('puts the pages beyond the first three under "More" on phones, marked when one of them is open', async () => {
    mockApi({ ...routes, 'GET /api/projects/p1/webhooks': [] })
    renderApp('/projects/p1/stability')
    const nav = await screen.findByRole('navigation', { name: 'Project' })
    const more = within(nav).getByRole('button', { name: 'More' })
    expect(more).toHaveAttribute('aria-expanded', 'false')
    await userEvent.click(more)
    expect(more).toHaveAttribute('aria-expanded', 'true')
    const list = document.getElementById(more.getAttribute('aria-controls')!)!
    expect(within(list).getAllByRole('link').map((link) => link.textContent)).toEqual(['Source maps & symbols', 'Webhooks', 'Settings'])
    await userEvent.keyboard('{Escape}')
    expect(more).toHaveAttribute('aria-expanded', 'false')
    expect(more).toHaveFocus()
    // Tabbing through and past the list closes it too.
    await userEvent.keyboard('{Enter}')
    expect(more).toHaveAttribute('aria-expanded', 'true')
    await userEvent.tab()
    expect(within(list).getByRole('link', { name: 'Source maps & symbols' })).toHaveFocus()
    await userEvent.tab()
    await userEvent.tab()
    await userEvent.tab()
    expect(more).toHaveAttribute('aria-expanded', 'false')
  })
})
