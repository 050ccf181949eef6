import { render, screen } from '@testing-library/react'
import { Component, type ReactNode } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { lazyComponent } from './lazy-component.tsx'
import { isChunkLoadError } from './route-chunks.ts'

const Panel = ({ name }: { name: string }) => <h2>Panel {name}</h2>
const missing = () => new TypeError('Failed to fetch dynamically imported module: http://localhost/assets/panel-abc.js')

class Boundary extends Component<{ children: ReactNode }, { error: unknown }> {
  override state = { error: null as unknown }
  static getDerivedStateFromError(error: unknown) {
    return { error }
  }
  override render() {
    return this.state.error ? <p role="alert">{isChunkLoadError(this.state.error, 'unreachable') ? 'unreachable' : 'other'}</p> : this.props.children
  }
}

describe('lazyComponent', () => {
  afterEach(() => vi.unstubAllGlobals())

  it('shows the fallback until the code arrives, then the component with its props; a preload and the render share one import', async () => {
    const importer = vi.fn(async () => Panel)
    const panel = lazyComponent(importer)
    panel.preload()
    render(<panel.Component name="one" fallback={<p>loading</p>} />)
    expect(await screen.findByRole('heading', { name: 'Panel one' })).toBeInTheDocument()
    panel.preload()
    expect(importer).toHaveBeenCalledTimes(1)
  })

  it('makes a chunk that cannot be fetched an error saying why, and imports again on the next render', async () => {
    // The probe for the server fails too: it is down.
    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))))
    const importer = vi.fn<() => Promise<typeof Panel>>().mockRejectedValueOnce(missing()).mockResolvedValue(Panel)
    const panel = lazyComponent(importer)
    const first = render(
      <Boundary>
        <panel.Component name="one" />
      </Boundary>,
    )
    expect(await screen.findByRole('alert')).toHaveTextContent('unreachable')
    first.unmount()

    render(<panel.Component name="again" />)
    expect(await screen.findByRole('heading', { name: 'Panel again' })).toBeInTheDocument()
    expect(importer).toHaveBeenCalledTimes(2)
  })
})
