import { QueryClient } from '@tanstack/react-query'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { currentUserQuery } from '../api/auth.ts'
import { projectCollaboratorsQuery } from '../api/collaborators.ts'
import { errorsInfiniteQuery } from '../api/errors.ts'
import { projectQuery } from '../api/projects.ts'
import { DEFAULT_FILTERS } from '../features/filters/to-filter-search.ts'
import { forgetFirstRequests } from '../lib/first-requests.ts'
import { clearToken, writeToken } from '../lib/token-store.ts'
import { collaborator, errorGroup, project } from '../test/fixtures.ts'
import { json, mockApi } from '../test/mock-api.ts'
import { startFirstRequests } from './first-requests.ts'

// The page's early script (index.html loads it before the app), as the browser runs it.
const runPageScript = () => startFirstRequests()

const user = { id: 'u1', name: 'Ada', email: 'ada@example.com', created_at: '2026-11-01T00:00:00.000Z' }
const listParams = { sort: 'last_seen' as const, direction: 'desc' as const, filters: DEFAULT_FILTERS }

describe('the first page’s requests, started by the page', () => {
  beforeEach(() => {
    window.history.replaceState(null, '', '/projects/p1/errors')
    writeToken('secret-token')
  })
  afterEach(() => {
    forgetFirstRequests()
    clearToken()
    window.history.replaceState(null, '', '/')
  })

  it('are what the app would have asked, and the app takes their answers instead of asking again', async () => {
    const { requests } = mockApi({
      'GET /api/user': user,
      'GET /api/projects/p1': project(),
      'GET /api/projects/p1/errors': json([errorGroup()], { headers: { 'X-Total-Count': '1' } }),
      'GET /api/projects/p1/collaborators': [collaborator()],
    })
    runPageScript()
    expect(requests.map((r) => r.url.pathname).sort()).toEqual(['/api/projects/p1', '/api/projects/p1/collaborators', '/api/projects/p1/errors', '/api/user'])
    for (const request of requests) {
      expect(request.headers.get('Authorization')).toBe('token secret-token')
      expect(request.headers.get('X-Version')).toBe('2')
    }

    const queryClient = new QueryClient()
    const [list, shown, me] = await Promise.all([
      queryClient.fetchInfiniteQuery(errorsInfiniteQuery('p1', listParams)),
      queryClient.fetchQuery(projectQuery('p1')),
      queryClient.fetchQuery(currentUserQuery()),
    ])
    expect(list.pages[0]?.items.map((e) => e.id)).toEqual(['e1'])
    expect(list.pages[0]?.totalCount).toBe(1)
    expect(shown.id).toBe('p1')
    expect(me.email).toBe('ada@example.com')
    const collaborators = await queryClient.fetchQuery(projectCollaboratorsQuery('p1'))
    expect(collaborators.map((c) => c.id)).toEqual(['u2'])
    // Four requests in all: the page's.
    expect(requests).toHaveLength(4)

    // Taken once: the next read asks the server.
    await queryClient.refetchQueries({ queryKey: projectQuery('p1').queryKey })
    expect(requests).toHaveLength(5)
  })

  it('hands an error answer to the app, which handles it as its own', async () => {
    const { requests } = mockApi({ 'GET /api/user': user, 'GET /api/projects/p1': json({ errors: ['project not found'] }, { status: 404 }) })
    runPageScript()
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } })
    await expect(queryClient.fetchQuery(projectQuery('p1'))).rejects.toMatchObject({ status: 404, messages: ['project not found'] })
    expect(requests.filter((r) => r.url.pathname === '/api/projects/p1')).toHaveLength(1)
  })

  it('are not taken by another session, nor after the first page has loaded', async () => {
    const { requests } = mockApi({ 'GET /api/user': user, 'GET /api/projects/p1': project() })
    runPageScript()
    writeToken('another-token')
    await new QueryClient().fetchQuery(currentUserQuery())
    expect(requests.filter((r) => r.url.pathname === '/api/user')).toHaveLength(2)

    writeToken('secret-token')
    forgetFirstRequests()
    await new QueryClient().fetchQuery(projectQuery('p1'))
    expect(requests.filter((r) => r.url.pathname === '/api/projects/p1')).toHaveLength(2)
  })

  it('start nothing without a signed-in user', () => {
    clearToken()
    const { requests } = mockApi({})
    runPageScript()
    expect(requests).toHaveLength(0)
    expect(window.errataFirstRequests).toBeUndefined()
  })
})
