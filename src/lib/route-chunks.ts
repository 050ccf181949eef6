/**
 * Loading the dashboard's code-split route chunks (`/assets/*.js`) without ever leaving the app.
 *
 * A chunk import can fail for two reasons that need opposite answers:
 * - the server cannot be reached (it is down, or the network is): the page must stay, say so and
 *   offer a Retry — a reload would replace the app with the browser's "site can't be reached";
 * - the server answers but the chunk is gone: a new version was deployed since this page loaded
 *   and the old hashed file names no longer exist. Only a reload fixes that (once: see
 *   `claimReload`). It is also what a Retry meets once the server is back: Chromium (150 and
 *   later) keeps a module whose fetch failed and never fetches it again in that document, so the
 *   reload is what loads it.
 * Vite's build serves every route's `component` through `lazyRouteComponent` (lazy-route-component.tsx),
 * which uses `loadChunk` so a failure becomes the route's error and reaches `RouteError`.
 */

/** What the dashboard says when the server does not answer (src/api/http.ts says it too). */
export const SERVER_UNREACHABLE_MESSAGE = 'Could not reach the Errata server. Check your connection and try again.'

export type ChunkFailure = 'unreachable' | 'stale'

/** A route's code could not be loaded: `unreachable` (offer a Retry) or `stale` (reload once). */
export class ChunkLoadError extends Error {
  readonly reason: ChunkFailure
  /** The browser's own message, naming the chunk where the browser does. */
  readonly detail: string

  constructor(reason: ChunkFailure, detail: string) {
    super(
      reason === 'unreachable'
        ? SERVER_UNREACHABLE_MESSAGE
        : 'Errata has been updated since this page was opened. Reload the page to use the new version.',
    )
    this.name = 'ChunkLoadError'
    this.reason = reason
    this.detail = detail
  }
}

export const isChunkLoadError = (error: unknown, reason?: ChunkFailure): error is ChunkLoadError =>
  error instanceof ChunkLoadError && (reason === undefined || error.reason === reason)

/** The browsers' (Chrome, Firefox, Safari) and Vite's wording for a module or stylesheet that could not be fetched. */
const FETCH_FAILURE =
  /^(Failed to fetch dynamically imported module|error loading dynamically imported module|Importing a module script failed|Unable to preload CSS)/

export function isFetchFailure(error: unknown): error is Error {
  return error instanceof Error && FETCH_FAILURE.test(error.message)
}

/** Does the server answer at all? Asks for the dashboard's own page, bypassing every cache. */
export async function isServerReachable(): Promise<boolean> {
  try {
    const response = await fetch('/', { method: 'HEAD', cache: 'no-store' })
    // A proxy in front of a stopped server answers 502/503/504: that is "unreachable" too.
    return response.ok
  } catch {
    return false
  }
}

/** Imports a chunk; a failure to fetch it becomes a `ChunkLoadError` saying why. */
export async function loadChunk<T>(importer: () => Promise<T>, serverReachable = isServerReachable): Promise<T> {
  try {
    return await importer()
  } catch (error) {
    if (!isFetchFailure(error)) throw error
    throw new ChunkLoadError((await serverReachable()) ? 'stale' : 'unreachable', error.message)
  }
}

const RELOAD_KEY = 'errata.chunk-reload'

/**
 * True the first time a given missing chunk asks for a reload in this tab, false after: when
 * the chunk is still missing once reloaded (a broken deploy), the page says so instead of
 * reloading in a loop. Another deploy later misses another chunk, so it reloads again.
 */
export function claimReload(error: ChunkLoadError): boolean {
  try {
    if (window.sessionStorage.getItem(RELOAD_KEY) === error.detail) return false
    window.sessionStorage.setItem(RELOAD_KEY, error.detail)
    return true
  } catch {
    // No session storage (blocked): no way to know whether we already tried, so do not loop.
    return false
  }
}
