// The answers to the API requests the page started before the app's code ran
// (src/first-paint/first-requests.ts). Each is taken once, by the request with the same URL and the same
// session; after the first page has loaded the rest are dropped, so nothing later gets an old answer.

interface FirstRequests {
  token: string
  requests: Record<string, Promise<Response> | undefined>
}

declare global {
  interface Window {
    errataFirstRequests?: FirstRequests
  }
}

/** The page's answer for this GET, once, when it was asked with the same token; otherwise undefined. */
export function takeFirstRequest(url: string, token: string | null): Promise<Response> | undefined {
  const started = window.errataFirstRequests
  if (!started || token === null || started.token !== token) return undefined
  const request = started.requests[url]
  delete started.requests[url]
  return request
}

/** The first page has loaded: from now on every request asks the server itself. */
export function forgetFirstRequests(): void {
  delete window.errataFirstRequests
}
