import { QueryClient } from '@tanstack/react-query'
import { describe, expect, it } from 'vitest'
import { event } from '../test/fixtures.ts'
import { json, mockApi } from '../test/mock-api.ts'
import { eventNeighboursQuery, pickNeighbour } from './events.ts'

describe('event neighbours', () => {
  it('takes the event after this one in a window, or none when the window missed it', () => {
    const window = [{ id: 'a' }, { id: 'b' }, { id: 'c' }]
    expect(pickNeighbour(window, 'b')).toEqual({ id: 'c' })
    expect(pickNeighbour(window, 'c')).toBeNull()
    expect(pickNeighbour(window, 'zzz')).toBeNull()
  })

  it('asks for windows that hold the event whatever the bounds, and finds both neighbours', async () => {
    const { requests } = mockApi({
      'GET /api/projects/p1/errors/e1/events': (request) =>
        request.url.searchParams.get('direction') === 'asc'
          ? json([event({ id: 'same-ms-older' }), event({ id: 'ev1' }), event({ id: 'newer' })])
          : json([event({ id: 'ev1' }), event({ id: 'older' })]),
    })
    const client = new QueryClient()
    const result = await client.fetchQuery(
      eventNeighboursQuery('p1', 'e1', { id: 'ev1', received_at: '2026-11-22T10:00:00.000Z' }),
    )
    expect(result).toEqual({
      newer: { id: 'newer', received_at: expect.any(String) },
      older: { id: 'older', received_at: expect.any(String) },
    })
    const desc = requests.find((r) => r.url.searchParams.get('direction') === 'desc')
    const asc = requests.find((r) => r.url.searchParams.get('direction') === 'asc')
    expect(desc?.url.searchParams.get('end_time')).toBe('2026-11-22T10:00:00.001Z')
    expect(asc?.url.searchParams.get('start_time')).toBe('2026-11-22T09:59:59.999Z')
  })
})
