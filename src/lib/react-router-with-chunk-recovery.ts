// What route modules get for `@tanstack/react-router` in Vite builds (vite.config.ts,
// `routeChunkRecovery`): the router itself, with our `lazyRouteComponent` in place of TanStack's,
// so a route chunk that cannot be fetched never reloads the document (lazy-route-component.ts).
export * from '@tanstack/react-router'
export { lazyRouteComponent } from './lazy-route-component.ts'
