import { lazy, Suspense, type ComponentType, type ReactNode } from 'react'
import { loadChunk } from './route-chunks.ts'

/**
 * A component whose code is a chunk of its own, for what a page does not need to show its first
 * screen (a dialog, the bulk-action bar, the onboarding of an empty project). `preload()` fetches
 * the code early (on intent, or when the browser is idle after the first paint) so that it is
 * usually there when asked for; one request is shared by the preload and the render, and a failed
 * one is asked again next time. A chunk that cannot be fetched becomes the route's error, with
 * Retry (lib/route-chunks.ts).
 */
export function lazyComponent<Props extends object>(importer: () => Promise<ComponentType<Props>>) {
  let loading: Promise<ComponentType<Props>> | undefined
  const load = () =>
    (loading ??= loadChunk(importer).catch((error: unknown) => {
      loading = undefined
      throw error
    }))
  // React keeps a lazy component's failure for good: after one, the next render gets a new one,
  // which imports again (a Retry of the route's error re-renders).
  const makeLazy = () =>
    lazy(() =>
      load().then(
        (component) => ({ default: component }),
        (error: unknown) => {
          Lazy = makeLazy()
          throw error
        },
      ),
    )
  let Lazy = makeLazy()
  /** The component, rendered when its code has arrived; until then `fallback` (nothing by default). */
  function LazyComponent({ fallback = null, ...props }: Props & { fallback?: ReactNode }) {
    return (
      <Suspense fallback={fallback}>
        <Lazy {...(props as unknown as Props)} />
      </Suspense>
    )
  }
  return {
    Component: LazyComponent,
    preload: () => {
      load().catch(() => undefined)
    },
  }
}

/** Runs `task` once the browser is idle (after the first paint), or after a moment where it cannot say. */
export function whenIdle(task: () => void): () => void {
  if (typeof window.requestIdleCallback === 'function') {
    const handle = window.requestIdleCallback(task, { timeout: 2000 })
    return () => window.cancelIdleCallback(handle)
  }
  const handle = window.setTimeout(task, 200)
  return () => window.clearTimeout(handle)
}
