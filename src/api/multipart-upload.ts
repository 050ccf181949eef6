// Uploads from the dashboard's forms (source maps, native symbol files): multipart bodies sent as
// the signed-in user with XMLHttpRequest, not fetch, as only it reports upload progress.
import { apiErrorSchema } from '../../contract/api-error.ts'
import { SERVER_UNREACHABLE_MESSAGE } from '../lib/route-chunks.ts'
import { readToken } from '../lib/token-store.ts'
import { ApiError, apiRequestHeaders, endSessionOnRejectedToken } from './http.ts'

export interface UploadOptions {
  onProgress?: (sent: number, total: number) => void
  signal?: AbortSignal
}

/** The server's messages (`{"errors": [...]}`), else the status and the start of what came back (a proxy's page). */
export function refusalMessages(status: number, body: string): string[] {
  try {
    const parsed = apiErrorSchema.safeParse(JSON.parse(body))
    if (parsed.success && parsed.data.errors.length > 0) return parsed.data.errors
  } catch {
    // Not JSON (a proxy's page): the status line says what it can.
  }
  return [`${status} ${body.trim().slice(0, 200) || 'upload failed'}`]
}

/**
 * POSTs `form` to `url` (an apiUrl) with the session's token; resolves with the answer's text on a
 * 2xx, rejects with an ApiError carrying the server's messages otherwise.
 */
export function postMultipart(url: string, form: FormData, { onProgress, signal }: UploadOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const token = readToken()
    const request = new XMLHttpRequest()
    request.open('POST', url)
    for (const [name, value] of Object.entries(apiRequestHeaders(token))) request.setRequestHeader(name, value)
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress?.(event.loaded, event.total)
    })
    request.addEventListener('load', () => {
      if (request.status >= 200 && request.status < 300) return resolve(request.responseText)
      endSessionOnRejectedToken(request.status, token)
      reject(new ApiError(request.status, refusalMessages(request.status, request.responseText)))
    })
    request.addEventListener('error', () => reject(new ApiError(0, [SERVER_UNREACHABLE_MESSAGE])))
    request.addEventListener('abort', () => reject(new DOMException('The upload was cancelled', 'AbortError')))
    signal?.addEventListener('abort', () => request.abort(), { once: true })
    request.send(form)
  })
}
