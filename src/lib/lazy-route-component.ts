import { createElement, use, type ComponentType, type ReactNode } from 'react'
import { loadChunk } from './route-chunks.ts'

type Props = Record<string, unknown>

/** A route component whose code arrives in its own chunk; the router awaits `preload` before rendering it. */
export interface LazyRouteComponent {
  (props: Props): ReactNode
  preload?: () => Promise<void>
}

/**
 * Our replacement for TanStack Router's `lazyRouteComponent`, which the router plugin's automatic
 * code splitting wraps every route `component` in (vite.config.ts points it here). TanStack's
 * swallows a failed import and, when the component renders, reloads the whole document — with
 * the server down, that lands on the browser's "This site can't be reached". Here `preload`
 * rejects with a `ChunkLoadError` instead, which the router turns into the route's error, so
 * `RouteError` shows it with a Retry (or reloads once, for a deploy). Nothing reloads from here.
 */
export function lazyRouteComponent<T extends Record<string, unknown>>(
  importer: () => Promise<T>,
  exportName: keyof T & string = 'default',
): LazyRouteComponent {
  let component: ComponentType<Props> | undefined
  let loading: Promise<void> | undefined

  const load = (): Promise<void> => {
    loading ??= loadChunk(importer).then(
      (module) => {
        component = module[exportName] as ComponentType<Props>
        // Loaded: the router has nothing to wait for any more, so a cached page renders at once.
        Lazy.preload = undefined
      },
      (error: unknown) => {
        // Let the next attempt (Retry, another navigation) import it again.
        loading = undefined
        throw error
      },
    )
    return loading
  }

  function Lazy(props: Props): ReactNode {
    // Rendered before the router preloaded it: suspend here; a failure goes to the route's error boundary.
    if (!component) use(load())
    return component ? createElement(component, props) : null
  }
  Lazy.preload = load as (() => Promise<void>) | undefined
  return Lazy
}
