import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { ValidationError } from '../failures.ts'
import { readJsApp } from '../test-support/source-map-uploads.ts'
import { inspectSourceMap } from './inspect-source-map.ts'

const MAP = readJsApp('dist/app.min.js.map')
const gzip = (text: string) => gzipSync(text)

describe('inspectSourceMap', () => {
  it('reads small maps on the calling thread', async () => {
    expect(await inspectSourceMap(gzip(MAP), MAP.length)).toEqual({ mapFile: null, sourcesCount: 2 })
    const withFile = JSON.stringify({ ...JSON.parse(MAP), file: 'app.min.js' })
    expect(await inspectSourceMap(gzip(withFile), withFile.length)).toEqual({ mapFile: 'app.min.js', sourcesCount: 2 })
  })

  it('reads large maps on a worker thread, one at a time, with the same answers', async () => {
    const big = JSON.stringify({ ...JSON.parse(MAP), file: 'big.js', sourcesContent: ['x'.repeat(1_500_000), 'y'] })
    const bad = JSON.stringify({ version: 2, sources: [], mappings: '' })
    const [ok, refused] = await Promise.allSettled([inspectSourceMap(gzip(big), big.length), inspectSourceMap(gzip(bad), bad.length, 0)])
    expect(ok).toEqual({ status: 'fulfilled', value: { mapFile: 'big.js', sourcesCount: 2 } })
    expect(refused.status).toBe('rejected')
    const reason = (refused as PromiseRejectedResult).reason
    expect(reason).toBeInstanceOf(ValidationError)
    expect((reason as ValidationError).messages).toEqual(['sourceMap: "version" is 2; only version 3 source maps are supported'])
  })
})
