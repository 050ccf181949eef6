import { tmpdir } from 'node:os'
import { describe, expect, it } from 'vitest'
import { explainStartFailure } from './client.ts'

describe('explainStartFailure', () => {
  const aborted = new Error('RuntimeError: Aborted()')

  it('names a (nearly) full disk when the embedded database cannot start', async () => {
    const explained = (await explainStartFailure(aborted, tmpdir(), Number.MAX_SAFE_INTEGER)) as Error
    expect(explained.message).toMatch(/could not start, and the disk of DATA_DIR .* has only \d+ bytes free: free some space/)
    expect(explained.cause).toBe(aborted)
  })

  it('passes the failure on unchanged when there is room, or no data directory', async () => {
    expect(await explainStartFailure(aborted, tmpdir(), 0)).toBe(aborted)
    expect(await explainStartFailure(aborted, undefined)).toBe(aborted)
  })
})
