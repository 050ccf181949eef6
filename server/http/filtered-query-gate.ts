import type { MiddlewareHandler } from 'hono'
import { perApp, type AppEnv } from '../context.ts'
import { ServiceBusyError } from '../failures.ts'

/** A counting semaphore whose waiters give up after a while. */
export interface Gate {
  /** Resolves with a release function once a slot is free; rejects after `waitMs` in line. */
  enter(waitMs: number): Promise<() => void>
  readonly running: number
  readonly waiting: number
}

export function createGate(slots: number): Gate {
  let running = 0
  const queue: Array<() => void> = []
  const release = () => {
    const next = queue.shift()
    if (next) next()
    else running -= 1
  }
  return {
    get running() {
      return running
    },
    get waiting() {
      return queue.length
    },
    enter(waitMs) {
      if (running < slots) {
        running += 1
        return Promise.resolve(once(release))
      }
      return new Promise((resolve, reject) => {
        // Handing over a slot keeps `running` as it is: the releaser's slot becomes this one's.
        const take = () => {
          clearTimeout(timer)
          resolve(once(release))
        }
        const timer = setTimeout(() => {
          queue.splice(queue.indexOf(take), 1)
          reject(new Error('timed out'))
        }, waitMs)
        queue.push(take)
      })
    },
  }
}

function once(fn: () => void): () => void {
  let done = false
  return () => {
    if (done) return
    done = true
    fn()
  }
}

/** The gate of filtered searches of the app built from `deps` (one per app: both listeners share it). */
export const filteredQueryGate = perApp((deps): Gate => createGate(deps.config.filteredQueries.concurrency))

/**
 * Bounds the API requests that carry filters (a "contains" filter scans events; on the embedded
 * database, which runs one query at a time, a few of them at once would hold indexing and every
 * other request behind them). Past `filteredQueries.concurrency` running, a request waits its
 * turn up to `filteredQueries.waitMs`, then answers 503 with Retry-After.
 */
export const boundFilteredQueries: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method !== 'GET' || !hasFilters(c.req.url)) return next()
  const { deps } = c.var
  const gate = filteredQueryGate(deps)
  let release: () => void
  try {
    release = await gate.enter(deps.config.filteredQueries.waitMs)
  } catch {
    throw new ServiceBusyError('too many filtered searches are running; retry shortly', 5)
  }
  try {
    await next()
  } finally {
    release()
  }
}

function hasFilters(url: string): boolean {
  const query = url.indexOf('?')
  // filters[...] as written or percent-encoded (filters%5B).
  return query >= 0 && /(^|&)filters(\[|%5B)/i.test(url.slice(query + 1))
}
