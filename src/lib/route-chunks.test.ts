import { describe, expect, it, vi } from 'vitest'
import { ChunkLoadError, claimReload, isChunkLoadError, loadChunk, SERVER_UNREACHABLE_MESSAGE } from './route-chunks.ts'

const chromeFailure = () => new TypeError('Failed to fetch dynamically imported module: http://localhost/assets/page-abc123.js')

describe('loadChunk', () => {
  it('returns the module when the import succeeds, without asking the server', async () => {
    const reachable = vi.fn(async () => true)
    await expect(loadChunk(async () => ({ page: 1 }), reachable)).resolves.toEqual({ page: 1 })
    expect(reachable).not.toHaveBeenCalled()
  })

  it('says the server cannot be reached when the chunk and the server both fail', async () => {
    const failure = loadChunk(() => Promise.reject(chromeFailure()), async () => false)
    await expect(failure).rejects.toSatisfy((error) => isChunkLoadError(error, 'unreachable'))
    await expect(failure).rejects.toThrow(SERVER_UNREACHABLE_MESSAGE)
  })

  it('calls a chunk missing from a server that answers stale (a deploy)', async () => {
    for (const message of [
      'Failed to fetch dynamically imported module: http://localhost/assets/a.js',
      'error loading dynamically imported module: http://localhost/assets/a.js',
      'Importing a module script failed.',
      'Unable to preload CSS for /assets/a.css',
    ]) {
      const failure = loadChunk(() => Promise.reject(new TypeError(message)), async () => true)
      await expect(failure).rejects.toSatisfy((error) => isChunkLoadError(error, 'stale') && error.detail === message)
    }
  })

  it('passes other failures (a bug in the module) through untouched', async () => {
    const bug = new ReferenceError('x is not defined')
    const reachable = vi.fn(async () => true)
    await expect(loadChunk(() => Promise.reject(bug), reachable)).rejects.toBe(bug)
    expect(reachable).not.toHaveBeenCalled()
  })
})

describe('claimReload', () => {
  it('allows one reload per missing chunk in a tab', () => {
    const first = new ChunkLoadError('stale', 'Failed to fetch dynamically imported module: /assets/a-1.js')
    const next = new ChunkLoadError('stale', 'Failed to fetch dynamically imported module: /assets/b-2.js')
    expect(claimReload(first)).toBe(true)
    // Still missing after the reload: a broken deploy; do not reload in a loop.
    expect(claimReload(first)).toBe(false)
    // A later deploy misses another chunk: that one reloads again.
    expect(claimReload(next)).toBe(true)
  })
})
