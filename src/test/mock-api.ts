import { vi } from 'vitest'

export interface MockRequest {
  method: string
  url: URL
  headers: Headers
  body: unknown
}

type Handler = (request: MockRequest) => Response | Promise<Response>

/** A JSON response, as the Errata server would send it. */
export function json(body: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  return new Response(JSON.stringify(body), {
    status: init.status ?? 200,
    headers: { 'Content-Type': 'application/json', ...init.headers },
  })
}

/**
 * Stubs global fetch with a table of `"METHOD /path"` → handler, Response or JSON body. The query
 * string is not part of the key; handlers read it from `request.url`. Unknown requests get a 404.
 */
export function mockApi(routes: Record<string, Handler | Response | object>) {
  const requests: MockRequest[] = []
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), window.location.origin)
    const method = (init.method ?? 'GET').toUpperCase()
    const request: MockRequest = {
      method,
      url,
      headers: new Headers(init.headers),
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
    }
    requests.push(request)
    const route = routes[`${method} ${url.pathname}`]
    if (route === undefined) return json({ errors: [`no mock for ${method} ${url.pathname}`] }, { status: 404 })
    if (typeof route === 'function') return (route as Handler)(request)
    // A Response body can be read once; hand out a fresh copy each time.
    return route instanceof Response ? route.clone() : json(route)
  })
  vi.stubGlobal('fetch', fetchMock)
  return { fetchMock, requests }
}

export interface MockUpload {
  method: string
  url: URL
  /** The request headers set with setRequestHeader. */
  headers: Record<string, string>
  body: FormData
}

/**
 * Stubs XMLHttpRequest (what uploads use, for their progress) with one handler for every request.
 * The body is reported sent in two progress steps, then the handler's Response is the answer.
 */
export function mockUploads(handler: (request: MockUpload) => Response | Promise<Response>) {
  const requests: MockUpload[] = []
  class MockXMLHttpRequest extends EventTarget {
    readonly upload = new EventTarget()
    status = 0
    responseText = ''
    private method = 'GET'
    private url = ''
    private headers: Record<string, string> = {}
    open(method: string, url: string) {
      this.method = method.toUpperCase()
      this.url = url
    }
    setRequestHeader(name: string, value: string) {
      this.headers[name] = value
    }
    abort() {
      this.dispatchEvent(new Event('abort'))
    }
    send(body: FormData) {
      const request = { method: this.method, url: new URL(this.url, window.location.origin), headers: this.headers, body }
      requests.push(request)
      const total = [...body.values()].reduce((sum, value) => sum + (typeof value === 'string' ? value.length : value.size), 0)
      const progress = (loaded: number) => {
        const event = new Event('progress') as Event & { lengthComputable: boolean; loaded: number; total: number }
        Object.assign(event, { lengthComputable: true, loaded, total })
        this.upload.dispatchEvent(event)
      }
      void (async () => {
        progress(Math.floor(total / 2))
        progress(total)
        const response = await handler(request)
        this.status = response.status
        this.responseText = await response.text()
        this.dispatchEvent(new Event('load'))
      })()
    }
  }
  vi.stubGlobal('XMLHttpRequest', MockXMLHttpRequest)
  return { requests }
}
