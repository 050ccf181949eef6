import { queryOptions } from '@tanstack/react-query'
import { eventSchema, type ErrorEvent } from '../../contract/events.ts'
import { apiUrl, getJson, getPage } from './http.ts'

export const EVENTS_PAGE_SIZE = 20

const projectPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}`

export const eventKeys = {
  all: ['events'] as const,
  lists: () => [...eventKeys.all, 'list'] as const,
  errorEvents: (projectId: string, errorId: string, cursor: string | undefined) =>
    [...eventKeys.lists(), projectId, errorId, { cursor: cursor ?? null }] as const,
  neighbours: (projectId: string, errorId: string, eventId: string, receivedAt: string) =>
    [...eventKeys.all, 'neighbours', projectId, errorId, eventId, receivedAt] as const,
  detail: (projectId: string, eventId: string) => [...eventKeys.all, 'detail', projectId, eventId] as const,
}

const errorEventsUrl = (projectId: string, errorId: string, query: Record<string, string | number | undefined>) =>
  apiUrl(`${projectPath(projectId)}/errors/${encodeURIComponent(errorId)}/events`, query)

/** One page of an error's events, newest first; `cursor` comes from the URL bar. */
export const errorEventsQuery = (projectId: string, errorId: string, cursor: string | undefined) =>
  queryOptions({
    queryKey: eventKeys.errorEvents(projectId, errorId, cursor),
    queryFn: ({ signal }) =>
      getPage(errorEventsUrl(projectId, errorId, { per_page: EVENTS_PAGE_SIZE, cursor }), eventSchema, signal),
    staleTime: 15_000,
  })

/** An event never changes once received. */
export const eventQuery = (projectId: string, eventId: string) =>
  queryOptions({
    queryKey: eventKeys.detail(projectId, eventId),
    queryFn: ({ signal }) =>
      getJson(apiUrl(`${projectPath(projectId)}/events/${encodeURIComponent(eventId)}`), eventSchema, signal),
    staleTime: Infinity,
  })

export interface EventNeighbours {
  /** The next newer event of the same error, if any. */
  newer: Pick<ErrorEvent, 'id' | 'received_at'> | null
  /** The next older event of the same error, if any. */
  older: Pick<ErrorEvent, 'id' | 'received_at'> | null
}

/**
 * The event right after `eventId` in a window of the error's events list that contains it; null
 * when there is none (or, with many events in the same millisecond, when the window missed it).
 */
export function pickNeighbour<T extends { id: string }>(window: readonly T[], eventId: string): T | null {
  const index = window.findIndex((event) => event.id === eventId)
  return index === -1 ? null : (window[index + 1] ?? null)
}

/** One millisecond either side, so the window holds this event whether the bounds are inclusive or not. */
const shift = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString()
const NEIGHBOUR_WINDOW = 25

const slim = (event: ErrorEvent | null) => (event ? { id: event.id, received_at: event.received_at } : null)

/** Previous / next event of an error, found through its events list bounded by this event's time. */
export const eventNeighboursQuery = (projectId: string, errorId: string, event: Pick<ErrorEvent, 'id' | 'received_at'>) =>
  queryOptions({
    queryKey: eventKeys.neighbours(projectId, errorId, event.id, event.received_at),
    queryFn: async ({ signal }): Promise<EventNeighbours> => {
      const [olderWindow, newerWindow] = await Promise.all([
        getPage(errorEventsUrl(projectId, errorId, { direction: 'desc', end_time: shift(event.received_at, 1), per_page: NEIGHBOUR_WINDOW }), eventSchema, signal),
        getPage(errorEventsUrl(projectId, errorId, { direction: 'asc', start_time: shift(event.received_at, -1), per_page: NEIGHBOUR_WINDOW }), eventSchema, signal),
      ])
      return {
        older: slim(pickNeighbour(olderWindow.items, event.id)),
        newer: slim(pickNeighbour(newerWindow.items, event.id)),
      }
    },
    staleTime: 15_000,
  })
