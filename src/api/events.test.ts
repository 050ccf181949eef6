import { QueryClient } from '@tanstack/react-query'
import { describe, expect, it } from 'vitest'
import { event } from '../test/fixtures.ts'
import { json, mockApi } from '../test/mock-api.ts'
import { eventNeighboursQuery } from './events.ts'

describe('event neighbours', () => {
  it('asks for the first event after this one each way, and finds both neighbours', async () => {
    const { requests } = mockApi({
      'GET /api/projects/p1/errors/e1/events': (request) =>
        request.url.searchParams.get('direction') === 'asc' ? json([event({ id: 'newer' })]) : json([event({ id: 'older' })]),
    })
    const client = new QueryClient()
    const result = await client.fetchQuery(eventNeighboursQuery('p1', 'e1', { id: 'ev1', received_at: '2026-11-22T10:00:00.000Z' }))
    expect(result).toEqual({
      newer: { id: 'newer', received_at: expect.any(String) },
      older: { id: 'older', received_at: expect.any(String) },
    })
    for (const direction of ['asc', 'desc']) {
      const request = requests.find((r) => r.url.searchParams.get('direction') === direction)
      expect(request?.url.searchParams.get('after_event')).toBe('ev1')
      expect(request?.url.searchParams.get('per_page')).toBe('1')
    }
  })

  it('says there is none at either end', async () => {
    mockApi({ 'GET /api/projects/p1/errors/e1/events': () => json([]) })
    const result = await new QueryClient().fetchQuery(eventNeighboursQuery('p1', 'e1', { id: 'ev1', received_at: '2026-11-22T10:00:00.000Z' }))
    expect(result).toEqual({ newer: null, older: null })
  })
})
