import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod/mini'
import { errorSchema } from '../../contract/errors.ts'
import { readToken, writeToken } from '../lib/token-store.ts'
import { errorGroup } from '../test/fixtures.ts'
import { json, mockApi } from '../test/mock-api.ts'
import { ApiError, apiUrl, getJson, getPage, parseLinkHeader, sendJson, setUnauthorizedHandler } from './http.ts'

describe('http wrapper', () => {
  it('sends the stored token and X-Version: 2, and parses the body with the contract schema', async () => {
    writeToken('secret-token')
    const { requests } = mockApi({ 'GET /api/thing': { name: 'a' } })
    const body = await getJson(apiUrl('/thing', { page: 2, empty: undefined }), z.object({ name: z.string() }))
    expect(body).toEqual({ name: 'a' })
    expect(requests[0]?.headers.get('Authorization')).toBe('token secret-token')
    expect(requests[0]?.headers.get('X-Version')).toBe('2')
    expect(requests[0]?.url.search).toBe('?page=2')
  })

  it('sends no Authorization header without a token, and JSON bodies with a content type', async () => {
    const { requests } = mockApi({ 'POST /api/things': json({ name: 'b' }, { status: 201 }) })
    await sendJson('POST', apiUrl('/things'), { name: 'b' }, z.object({ name: z.string() }))
    expect(requests[0]?.headers.has('Authorization')).toBe(false)
    expect(requests[0]?.headers.get('Content-Type')).toBe('application/json')
    expect(requests[0]?.body).toEqual({ name: 'b' })
  })

  it('turns a non-2xx answer into an ApiError with the status and the server messages', async () => {
    mockApi({ 'POST /api/things': json({ errors: ['name: must not be empty'] }, { status: 400 }) })
    const failure = sendJson('POST', apiUrl('/things'), { name: '' }, z.object({}))
    await expect(failure).rejects.toBeInstanceOf(ApiError)
    await expect(failure).rejects.toMatchObject({ status: 400, messages: ['name: must not be empty'] })
  })

  it('falls back to the status line when the error body is not JSON', async () => {
    mockApi({ 'GET /api/boom': () => new Response('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }) })
    await expect(getJson(apiUrl('/boom'), z.object({}))).rejects.toMatchObject({ status: 502, messages: ['502 Bad Gateway'] })
  })

  it('reports an unreachable server as status 0', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))))
    await expect(getJson(apiUrl('/x'), z.object({}))).rejects.toMatchObject({ status: 0 })
  })

  it('rejects a response that does not match the contract', async () => {
    mockApi({ 'GET /api/thing': { name: 42 } })
    await expect(getJson(apiUrl('/thing'), z.object({ name: z.string() }))).rejects.toMatchObject({
      messages: [expect.stringContaining('name')],
    })
  })

  it('on 401 with a token, forgets the token and calls the unauthorized handler', async () => {
    writeToken('revoked')
    const handler = vi.fn()
    setUnauthorizedHandler(handler)
    mockApi({ 'GET /api/user': json({ errors: ['invalid token'] }, { status: 401 }) })
    await expect(getJson(apiUrl('/user'), z.object({}))).rejects.toMatchObject({ status: 401 })
    expect(readToken()).toBeNull()
    expect(handler).toHaveBeenCalledOnce()
    setUnauthorizedHandler(undefined)
  })

  it('on 401 without a token (a wrong password) does not call the unauthorized handler', async () => {
    const handler = vi.fn()
    setUnauthorizedHandler(handler)
    mockApi({ 'POST /api/auth/login': json({ errors: ['invalid email or password'] }, { status: 401 }) })
    await expect(sendJson('POST', apiUrl('/auth/login'), {}, z.object({}))).rejects.toMatchObject({ status: 401 })
    expect(handler).not.toHaveBeenCalled()
    setUnauthorizedHandler(undefined)
  })
})

describe('list pages', () => {
  it('parses the Link rel="next" and X-Total-Count headers', async () => {
    mockApi({
      'GET /api/projects/p1/errors': json([errorGroup()], {
        headers: {
          Link: '<https://errata.example.com/api/projects/p1/errors?per_page=1&cursor=abc%3D%3D>; rel="next"',
          'X-Total-Count': '42',
        },
      }),
    })
    const page = await getPage(apiUrl('/projects/p1/errors', { per_page: 1 }), errorSchema)
    expect(page.items).toHaveLength(1)
    // Followed on our own origin, whatever host the server wrote.
    expect(page.nextUrl).toBe('/api/projects/p1/errors?per_page=1&cursor=abc%3D%3D')
    expect(page.nextCursor).toBe('abc==')
    expect(page.totalCount).toBe(42)
  })

  it('has no next page without a Link header', async () => {
    mockApi({ 'GET /api/projects/p1/errors': [] })
    const page = await getPage(apiUrl('/projects/p1/errors'), errorSchema)
    expect(page).toEqual({ items: [], nextUrl: null, nextCursor: null, totalCount: null })
  })

  it('parseLinkHeader reads several links and quoted or bare rels', () => {
    expect(parseLinkHeader('<http://a/1>; rel="next", <http://a/0>; rel=prev')).toEqual({
      next: 'http://a/1',
      prev: 'http://a/0',
    })
    expect(parseLinkHeader('<http://a/?x=1,2>; rel="next last"')).toEqual({ next: 'http://a/?x=1,2', last: 'http://a/?x=1,2' })
    expect(parseLinkHeader(null)).toEqual({})
    expect(parseLinkHeader('garbage')).toEqual({})
  })
})
