/** The methods a set of routes answers for a request path (HEAD with GET); middleware, registered for every method, left out. */
export type RouteMethods = (path: string) => string[]

/** The methods each route path answers, as a lookup by request path. */
export function routeMethods(routes: readonly { method: string; path: string }[]): RouteMethods {
  const patterns = new Map<string, { pattern: RegExp; methods: Set<string> }>()
  for (const { method, path } of routes) {
    if (method === 'ALL' || path.includes('*')) continue
    const entry = patterns.get(path) ?? {
      pattern: new RegExp(`^${path.split('/').map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))).join('/')}/?$`),
      methods: new Set<string>(),
    }
    entry.methods.add(method)
    if (method === 'GET') entry.methods.add('HEAD')
    patterns.set(path, entry)
  }
  return (path) => {
    const methods = new Set<string>()
    for (const { pattern, methods: of } of patterns.values()) if (pattern.test(path)) for (const m of of) methods.add(m)
    return [...methods].sort()
  }
}
