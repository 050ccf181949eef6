import type { Context } from 'hono'
import { perApp, type AppEnv } from '../context.ts'
import { TooManyRequestsError } from '../failures.ts'
import { clientAddress } from '../http/client-address.ts'

// What a refused client is told to wait: an upload takes seconds.
const RETRY_AFTER_MS = 5000

/** The uploads being received from each client address (per app: both listeners share the counts). */
export const uploadsInProgress = perApp(() => new Map<string, number>())

/**
 * Takes one of the uploads a client address may have in progress at once
 * (ERRATA_MAX_UPLOADS_PER_ADDRESS), or refuses the request with 429 and Retry-After before its
 * body is read. Each upload in progress holds a bounded amount of memory and a temporary
 * directory (docs/operations.md, "Uploads"); this bounds how many one client holds. Returns the
 * release, to call once the upload is answered.
 */
export function takeUploadSlot(c: Context<AppEnv>): () => void {
  const { deps } = c.var
  const counts = uploadsInProgress(deps)
  const address = clientAddress(c)
  const max = deps.config.sourceMaps.uploadsPerAddress
  const open = counts.get(address) ?? 0
  if (open >= max) {
    // The body is not read: the connection cannot carry another request.
    c.header('Connection', 'close')
    throw new TooManyRequestsError(`uploads: ${max} from this address are in progress already (ERRATA_MAX_UPLOADS_PER_ADDRESS)`, RETRY_AFTER_MS)
  }
  counts.set(address, open + 1)
  let released = false
  return () => {
    if (released) return
    released = true
    const left = (counts.get(address) ?? 1) - 1
    if (left === 0) counts.delete(address)
    else counts.set(address, left)
  }
}
