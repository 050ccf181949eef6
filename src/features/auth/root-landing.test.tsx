import { waitFor } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { readLastProject, rememberLastProject } from '../../lib/last-project.ts'
import { organization, project, signedInUser } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

// `/` for a signed-in user lands where sign-in does (features/auth/sign-in.ts, landingAfterSignIn).
describe('the root page', () => {
  it('opens the last project used', async () => {
    rememberLastProject('u1', 'p1')
    mockApi({ 'GET /api/user': signedInUser, 'GET /api/projects/p1': project(), 'GET /api/projects/p1/errors': [] })
    const { router } = renderApp('/')
    await waitFor(() => expect(router.state.location.pathname).toBe('/projects/p1/errors'))
  })

  it('falls back to the organization picker without a last project, or when it is no longer accessible', async () => {
    mockApi({
      'GET /api/user': signedInUser,
      'GET /api/user/invitations': [],
      'GET /api/user/organizations': [organization()],
      'GET /api/projects/gone': json({ errors: ['project not found'] }, { status: 404 }),
    })
    const first = renderApp('/')
    await waitFor(() => expect(first.router.state.location.pathname).toMatch(/^\/organizations\/?$/))
    first.unmount()

    rememberLastProject('u1', 'gone')
    const second = renderApp('/')
    await waitFor(() => expect(second.router.state.location.pathname).toMatch(/^\/organizations\/?$/))
    expect(readLastProject('u1')).toBeNull()
  })

  it('sends a signed-out visitor to the login page', async () => {
    const { router } = renderApp('/', { token: null })
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'))
  })
})
