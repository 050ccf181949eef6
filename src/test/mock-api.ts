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
