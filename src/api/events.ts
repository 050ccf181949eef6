import { hashKey, queryOptions } from '@tanstack/react-query'
import { eventSchema, type ErrorEvent } from '../../contract/events.ts'
import type { Filters } from '../../contract/filters.ts'
import { withFilters } from './event-fields.ts'
import { errorKeys, projectLists } from './errors.ts'
import { apiUrl, getJson, getPage, sendEmpty } from './http.ts'
import { invalidate, mutationWithCacheRule } from './cache-rules.ts'
import { pivotKeys } from './pivots.ts'
import { projectKeys } from './projects.ts'
import { trendKeys } from './trends.ts'

export const EVENTS_PAGE_SIZE = 20

const projectPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}`

export const eventKeys = {
  all: ['events'] as const,
  lists: () => [...eventKeys.all, 'list'] as const,
  errorEventPages: (projectId: string, errorId: string) => [...eventKeys.lists(), projectId, errorId] as const,
  errorEvents: (projectId: string, errorId: string, cursor: string | undefined, filters: Filters) =>
    [...eventKeys.errorEventPages(projectId, errorId), { cursor: cursor ?? null, filters }] as const,
  neighbours: (projectId: string, errorId: string, eventId: string, receivedAt: string) =>
    [...eventKeys.all, 'neighbours', projectId, errorId, eventId, receivedAt] as const,
  detail: (projectId: string, eventId: string) => [...eventKeys.all, 'detail', projectId, eventId] as const,
  position: (projectId: string, errorId: string, eventId: string, receivedAt: string) =>
    [...eventKeys.all, 'position', projectId, errorId, eventId, receivedAt] as const,
  projectNewest: (projectId: string) => [...eventKeys.all, 'newest', projectId] as const,
}

const errorEventsUrl = (projectId: string, errorId: string, query: Record<string, string | number | undefined>) =>
  apiUrl(`${projectPath(projectId)}/errors/${encodeURIComponent(errorId)}/events`, query)

/**
 * One page of an error's events, newest first, of those the filters match (the error page's time
 * range and pivot values); `cursor` comes from the URL bar.
 */
export const errorEventsQuery = (projectId: string, errorId: string, cursor: string | undefined, filters: Filters = {}) =>
  queryOptions({
    queryKey: eventKeys.errorEvents(projectId, errorId, cursor, filters),
    queryFn: ({ signal }) =>
      getPage(withFilters(errorEventsUrl(projectId, errorId, { per_page: EVENTS_PAGE_SIZE, cursor }), filters), eventSchema, signal),
    staleTime: 15_000,
    // Paging keeps the last page of the same error on screen while the next loads: the page keeps
    // its height and scroll. Another error's events are never shown in its place.
    placeholderData: (previous, previousQuery) =>
      hashKey(previousQuery?.queryKey.slice(0, -1) ?? []) === hashKey(eventKeys.errorEventPages(projectId, errorId)) ? previous : undefined,
  })

/** An event never changes once received. */
export const eventQuery = (projectId: string, eventId: string) =>
  queryOptions({
    queryKey: eventKeys.detail(projectId, eventId),
    queryFn: ({ signal }) =>
      getJson(apiUrl(`${projectPath(projectId)}/events/${encodeURIComponent(eventId)}`), eventSchema, signal),
    staleTime: Infinity,
  })

/** The project's newest event, or null before its first (the source map form takes its app version). */
export const newestProjectEventQuery = (projectId: string) =>
  queryOptions({
    queryKey: eventKeys.projectNewest(projectId),
    queryFn: async ({ signal }) =>
      (await getPage(apiUrl(`${projectPath(projectId)}/events`, { per_page: 1 }), eventSchema, signal)).items[0] ?? null,
    staleTime: 60_000,
  })

export interface EventNeighbours {
  /** The next newer event of the same error, if any. */
  newer: Pick<ErrorEvent, 'id' | 'received_at'> | null
  /** The next older event of the same error, if any. */
  older: Pick<ErrorEvent, 'id' | 'received_at'> | null
}

const slim = (event: ErrorEvent | undefined) => (event ? { id: event.id, received_at: event.received_at } : null)

/**
 * Previous / next event of an error: the first row of its events list after this event, each
 * way (`after_event`). The server orders by (received_at, id), so events that share a
 * millisecond, such as those of one request, are each reachable.
 */
export const eventNeighboursQuery = (projectId: string, errorId: string, event: Pick<ErrorEvent, 'id' | 'received_at'>) =>
  queryOptions({
    queryKey: eventKeys.neighbours(projectId, errorId, event.id, event.received_at),
    queryFn: async ({ signal }): Promise<EventNeighbours> => {
      const [older, newer] = await Promise.all(
        (['desc', 'asc'] as const).map((direction) =>
          getPage(errorEventsUrl(projectId, errorId, { direction, after_event: event.id, per_page: 1 }), eventSchema, signal),
        ),
      )
      return { older: slim(older!.items[0]), newer: slim(newer!.items[0]) }
    },
    staleTime: 15_000,
  })

/**
 * Where an event stands among its error's events, newest first: 1 is the newest. The events
 * received in a later millisecond (a time window from the next one) plus those of the same
 * millisecond that sort before it (by id, as the server orders ties), plus one.
 */
export const eventPositionQuery = (projectId: string, errorId: string, event: Pick<ErrorEvent, 'id' | 'received_at'>) =>
  queryOptions({
    queryKey: eventKeys.position(projectId, errorId, event.id, event.received_at),
    queryFn: async ({ signal }) => {
      const at = Date.parse(event.received_at)
      const iso = (ms: number) => new Date(ms).toISOString()
      const [later, sameTime] = await Promise.all([
        getPage(errorEventsUrl(projectId, errorId, { start_time: iso(at + 1), per_page: 1 }), eventSchema, signal),
        getPage(errorEventsUrl(projectId, errorId, { start_time: iso(at), end_time: iso(at + 1), per_page: 100 }), eventSchema, signal),
      ])
      const tiedBefore = sameTime.items.filter((tied) => tied.id > event.id).length
      return (later.totalCount ?? 0) + tiedBefore + 1
    },
    staleTime: 15_000,
  })

export const eventMutationKeys = {
  delete: (projectId: string, errorId: string) => ['events', 'delete', projectId, errorId] as const,
}

/**
 * Deletes one event (admins; the server answers 403 to others): drops what was read about the
 * event itself and reads again what it counted in.
 */
export const deleteEventMutation = (projectId: string, errorId: string) =>
  mutationWithCacheRule({
    mutationKey: eventMutationKeys.delete(projectId, errorId),
    mutationFn: ({ eventId }: { eventId: string }) =>
      sendEmpty('DELETE', apiUrl(`${projectPath(projectId)}/events/${encodeURIComponent(eventId)}`)),
    meta: { inlineErrors: true },
    cache: {
      afterSuccess: (_data, { eventId }) => ({
        // Asked again, the deleted event's neighbours would be a 400 (after_event names no event
        // of the list) while the page moves on: dropped before anything is read again.
        remove: [
          eventKeys.detail(projectId, eventId),
          [...eventKeys.all, 'neighbours', projectId, errorId, eventId],
          [...eventKeys.all, 'position', projectId, errorId, eventId],
        ],
        ...invalidate(
          eventKeys.lists(),
          [...eventKeys.all, 'neighbours', projectId, errorId],
          [...eventKeys.all, 'position', projectId, errorId],
          errorKeys.detail(projectId, errorId),
          projectLists(projectId),
          projectKeys.detail(projectId),
          trendKeys.inProject(projectId),
          pivotKeys.project(projectId),
        ),
      }),
    },
  })
