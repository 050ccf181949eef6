import { gunzipSync, gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { ValidationError } from '../failures.ts'
import { readJsApp } from '../test-support/source-map-uploads.ts'
import { inspectSourceMap } from './inspect-source-map.ts'

const MAP = readJsApp('dist/app.min.js.map')
const gzip = (text: string) => gzipSync(text)

describe('inspectSourceMap', () => {
  it('reads small maps on the calling thread', async () => {
    expect(await inspectSourceMap(gzip(MAP), MAP.length)).toMatchObject({ mapFile: null, sourcesCount: 2 })
    const withFile = JSON.stringify({ ...JSON.parse(MAP), file: 'app.min.js' })
    expect(await inspectSourceMap(gzip(withFile), withFile.length)).toMatchObject({ mapFile: 'app.min.js', sourcesCount: 2 })
  })

  it('splits sourcesContent off for storage: none to split without it, or for an index map', async () => {
    const { sourcesContent: _content, ...bare } = JSON.parse(MAP) as Record<string, unknown>
    const withoutContent = JSON.stringify(bare)
    expect((await inspectSourceMap(gzip(withoutContent), withoutContent.length)).split).toBeNull()
    const index = JSON.stringify({ version: 3, sections: [{ offset: { line: 0, column: 0 }, map: JSON.parse(MAP) }] })
    expect((await inspectSourceMap(gzip(index), index.length)).split).toBeNull()
    const { split } = await inspectSourceMap(gzip(MAP), MAP.length)
    expect(split!.sources.map((source) => source.index)).toEqual([0, 1])
  })

  it('reads large maps on a worker thread, one at a time, with the same answers', async () => {
    const big = JSON.stringify({ ...JSON.parse(MAP), file: 'big.js', sourcesContent: ['x'.repeat(1_500_000), 'y'] })
    const bad = JSON.stringify({ version: 2, sources: [], mappings: '' })
    const [ok, refused] = await Promise.allSettled([inspectSourceMap(gzip(big), big.length), inspectSourceMap(gzip(bad), bad.length, 0)])
    expect(ok).toMatchObject({ status: 'fulfilled', value: { mapFile: 'big.js', sourcesCount: 2 } })
    // From the worker too: the map to store without its sourcesContent, and each source apart.
    const { split } = (ok as PromiseFulfilledResult<Awaited<ReturnType<typeof inspectSourceMap>>>).value
    const storedMap = JSON.parse(gunzipSync(split!.map).toString('utf8')) as Record<string, unknown>
    expect(storedMap).toEqual({ ...JSON.parse(big), sourcesContent: undefined })
    expect(split!.sources.map((source) => [source.index, source.size, gunzipSync(source.gzipped).toString('utf8').slice(0, 3)])).toEqual([
      [0, 1_500_000, 'xxx'],
      [1, 1, 'y'],
    ])
    expect(refused.status).toBe('rejected')
    const reason = (refused as PromiseRejectedResult).reason
    expect(reason).toBeInstanceOf(ValidationError)
    expect((reason as ValidationError).messages).toEqual(['sourceMap: "version" is 2; only version 3 source maps are supported'])
  })
})
