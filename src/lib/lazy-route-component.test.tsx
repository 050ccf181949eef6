import { render, screen } from '@testing-library/react'
import { Suspense } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { lazyRouteComponent } from './lazy-route-component.ts'
import { isChunkLoadError } from './route-chunks.ts'

const Page = ({ name }: { name?: unknown }) => <h1>Page {String(name)}</h1>
const missing = () => new TypeError('Failed to fetch dynamically imported module: http://localhost/assets/page-abc.js')

describe('lazyRouteComponent', () => {
  afterEach(() => vi.unstubAllGlobals())

  it('preloads the chunk, then renders its export with the props', async () => {
    const importer = vi.fn(async () => ({ component: Page }))
    const Lazy = lazyRouteComponent(importer, 'component')
    await Lazy.preload?.()
    // Loaded: nothing left for the router to wait for.
    expect(Lazy.preload).toBeUndefined()
    render(<Lazy name="errors" />)
    expect(screen.getByRole('heading', { name: 'Page errors' })).toBeInTheDocument()
    expect(importer).toHaveBeenCalledTimes(1)
  })

  it('rejects the preload when the chunk cannot be fetched, and never reloads; a later attempt imports again', async () => {
    // The probe for the server fails too: it is down.
    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))))
    const importer = vi.fn<() => Promise<{ component: typeof Page }>>().mockRejectedValueOnce(missing()).mockResolvedValue({ component: Page })
    const Lazy = lazyRouteComponent(importer, 'component')
    const preload = Lazy.preload
    await expect(preload?.()).rejects.toSatisfy((error) => isChunkLoadError(error, 'unreachable'))

    // Retry: the import is attempted again and the page renders.
    await preload?.()
    render(
      <Suspense fallback="loading">
        <Lazy name="again" />
      </Suspense>,
    )
    expect(await screen.findByRole('heading', { name: 'Page again' })).toBeInTheDocument()
    expect(importer).toHaveBeenCalledTimes(2)
  })
})
