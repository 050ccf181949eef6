// The app's code, asked for by the early script once its API requests are sent: the build takes the
// entry's module script and its modulepreloads out of index.html and names them on the early
// script's tag (vite.config.ts), and the server adds the route's chunks there
// (server/web/static-dashboard.ts). Named in the document, they were asked for by the preload
// scanner before the early script ran, and the API requests waited behind ~16 of them for one of
// HTTP/1.1's six connections. The app loads whatever the early script did: with no token, on
// another route, or when a request could not start.

const split = (value: string | undefined) => (value ?? '').split(' ').filter(Boolean)

function link(rel: string, href: string, low: boolean, as?: string): HTMLLinkElement {
  const element = document.createElement('link')
  element.rel = rel
  element.href = href
  element.crossOrigin = ''
  if (as) element.as = as
  if (low) element.setAttribute('fetchpriority', 'low')
  return element
}

/**
 * Asks for the entry's files now, the route's after them (at low priority: the entry's must run
 * first anyway), and runs the entry once the document is parsed (the app renders into #root).
 */
export function loadApp(script: HTMLOrSVGScriptElement | null): void {
  const data = script instanceof HTMLScriptElement ? script.dataset : undefined
  const entry = data?.appEntry
  if (!entry) return
  const head = document.head
  head.append(link('modulepreload', entry, false))
  for (const href of split(data.appPreloads)) head.append(link('modulepreload', href, false))
  for (const href of split(data.routePreloads)) {
    head.append(href.endsWith('.css') ? link('preload', href, true, 'style') : link('modulepreload', href, true))
  }
  const run = () => {
    const element = document.createElement('script')
    element.type = 'module'
    element.crossOrigin = ''
    element.src = entry
    document.body.append(element)
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', run, { once: true })
  else run()
}
