import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { parseAllowList } from '../outbound/allow-list.ts'
import { createUrlFetcher } from './fetch-url.ts'
import { symbolicatorSettings } from './javascript.ts'
import { startSlowServer } from '../test-support/slow-server.ts'

let server: Server
let origin: string
const hits = new Map<string, number>()

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.set(req.url ?? '', (hits.get(req.url ?? '') ?? 0) + 1)
    if (req.url === '/app.js') return res.end('console.log(1)\n//# sourceMappingURL=app.js.map\n')
    if (req.url === '/gzip.js') {
      res.setHeader('Content-Encoding', 'gzip')
      return res.end(gzipSync('compressed body'))
    }
    if (req.url === '/big.js') return res.end('x'.repeat(2048))
    if (req.url === '/cut.js') {
      // Half of a gzip'd body, then the connection goes.
      res.setHeader('Content-Encoding', 'gzip')
      const body = gzipSync('x'.repeat(100_000))
      res.write(body.subarray(0, body.length / 2), () => res.destroy())
      return
    }
    if (req.url === '/redirect') {
      res.statusCode = 302
      res.setHeader('Location', '/app.js')
      return res.end()
    }
    if (req.url === '/missing.js') {
      res.statusCode = 404
      return res.end('no')
    }
    // /slow.js never answers.
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

describe('ERRATA_FETCH_ALLOW', () => {
  it('reads host names, addresses and networks, and refuses anything else', () => {
    expect(parseAllowList(' localhost, 127.0.0.1 ,10.0.0.0/8,[::1], fd00::/8, assets.internal. ,')).toHaveLength(6)
    expect(parseAllowList('')).toEqual([])
    expect(() => parseAllowList('10.0.0.0/33')).toThrow('"10.0.0.0/33" is not a host name, an IP address or a network such as 10.0.0.0/8')
    expect(() => parseAllowList('http://x')).toThrow(/is not a host name/)
  })

  it('comes from the environment, with the other symbolication settings', () => {
    expect(() => loadConfig({ ERRATA_FETCH_ALLOW: '10.0.0.0/8, not a host!' })).toThrow(/ERRATA_FETCH_ALLOW: "not a host!" is not a host name/)
    expect(() => loadConfig({ ERRATA_FETCH_SOURCES: 'yes' })).toThrow(/ERRATA_FETCH_SOURCES/)
    expect(symbolicatorSettings(loadConfig({}))).toEqual({ cacheBytes: 256 * 1024 * 1024, fetch: { allow: [], maxBytes: 50 * 1024 * 1024, timeoutMs: 5000 } })
    const config = loadConfig({ ERRATA_FETCH_ALLOW: 'assets.internal', ERRATA_MAX_SOURCE_MAP_BYTES: '1000', ERRATA_SOURCE_MAP_CACHE_BYTES: '5000', ERRATA_FETCH_TIMEOUT_MS: '2000' })
    expect(symbolicatorSettings(config)).toEqual({ cacheBytes: 5000, fetch: { allow: [{ host: 'assets.internal' }], maxBytes: 1000, timeoutMs: 2000 } })
    expect(symbolicatorSettings(loadConfig({ ERRATA_FETCH_SOURCES: 'false' })).fetch).toBe(false)
  })
})

describe('createUrlFetcher', () => {
  const allowLocal = { allow: parseAllowList('127.0.0.1') }

  it('fetches from a loopback server the allow-list permits, following redirects and decompressing', async () => {
    const fetcher = createUrlFetcher(allowLocal)
    expect(await fetcher.fetchText(`${origin}/app.js`)).toMatchObject({ ok: true, text: 'console.log(1)\n//# sourceMappingURL=app.js.map\n' })
    expect(await fetcher.fetchText(`${origin}/redirect`)).toMatchObject({ ok: true, text: expect.stringContaining('console.log(1)') })
    expect(await fetcher.fetchText(`${origin}/gzip.js`)).toMatchObject({ ok: true, text: 'compressed body' })
    expect(await fetcher.fetchText(`${origin}/missing.js`)).toEqual({ ok: false, url: `${origin}/missing.js`, reason: 'HTTP 404' })
  })

  it('refuses a loopback address without the allow-list, by literal and by resolved name, connecting to nothing', async () => {
    const fetcher = createUrlFetcher({ allow: [] })
    const before = hits.get('/app.js') ?? 0
    const literal = await fetcher.fetchText(`${origin}/app.js`)
    expect(literal).toMatchObject({ ok: false, reason: '127.0.0.1 is a loopback, link-local or private address (allow it with ERRATA_FETCH_ALLOW)' })
    const byName = await fetcher.fetchText(`${origin.replace('127.0.0.1', 'localhost')}/app.js`)
    expect(byName).toMatchObject({ ok: false, reason: expect.stringMatching(/^localhost resolves to (127\.0\.0\.1|::1), a loopback, link-local or private address/) })
    expect(hits.get('/app.js') ?? 0).toBe(before)
  })

  it('refuses private and link-local literals (cloud metadata, LAN hosts) before connecting', async () => {
    const fetcher = createUrlFetcher({ allow: parseAllowList('127.0.0.1') })
    for (const url of ['http://10.1.2.3/app.js', 'http://192.168.0.10:8080/app.js', 'http://169.254.169.254/latest/meta-data', 'http://[fd00::1]/app.js', 'http://[::ffff:172.16.0.1]/app.js']) {
      const result = await fetcher.fetchText(url)
      expect(result.ok, url).toBe(false)
      expect(result.ok ? '' : result.reason, url).toMatch(/is a loopback, link-local or private address/)
    }
  })

  it('refuses a redirect from an allowed host to one that is not', async () => {
    const redirecting = createServer((_req, res) => {
      res.statusCode = 301
      res.setHeader('Location', `${origin}/app.js`)
      res.end()
    })
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.2', resolve))
    try {
      const fetcher = createUrlFetcher({ allow: parseAllowList('127.0.0.2') })
      const result = await fetcher.fetchText(`http://127.0.0.2:${(redirecting.address() as AddressInfo).port}/`)
      expect(result).toMatchObject({ ok: false, reason: '127.0.0.1 is a loopback, link-local or private address (allow it with ERRATA_FETCH_ALLOW)' })
    } finally {
      await new Promise((resolve) => redirecting.close(resolve))
    }
  })

  it('stops at the size cap and at the timeout, and fetches only http and https', async () => {
    const fetcher = createUrlFetcher({ ...allowLocal, maxBytes: 100, timeoutMs: 300 })
    expect(await fetcher.fetchText(`${origin}/big.js`)).toMatchObject({ ok: false, reason: 'larger than 100 bytes' })
    expect(await fetcher.fetchText(`${origin}/slow.js`)).toMatchObject({ ok: false, reason: 'no complete answer within 300 ms' })
    expect(await fetcher.fetchText('file:///etc/passwd')).toMatchObject({ ok: false, reason: 'file: URLs are not fetched' })
    expect(await fetcher.fetchText('not a url')).toMatchObject({ ok: false, reason: 'not a URL' })
  })

  it('gives up at its total deadline on a server that drips the body, compressed or not, and on redirects without end', { timeout: 30_000 }, async () => {
    const slow = await startSlowServer()
    try {
      const fetcher = createUrlFetcher({ ...allowLocal, timeoutMs: 300 })
      for (const path of ['/drip', '/drip-gzip']) {
        expect(await fetcher.fetchText(slow.url(path)), path).toMatchObject({ ok: false, reason: 'no complete answer within 300 ms' })
        await slow.closedBy(path)
      }
      expect(await fetcher.fetchText(slow.url('/loop'))).toMatchObject({ ok: false, reason: 'more than 3 redirects' })
      expect(slow.received.filter((path) => path === '/loop')).toHaveLength(4)
    } finally {
      await slow.close()
    }
  })

  it('fails on a compressed answer cut short instead of waiting for its end', async () => {
    const fetcher = createUrlFetcher({ ...allowLocal, timeoutMs: 60_000 })
    expect(await fetcher.fetchText(`${origin}/cut.js`)).toMatchObject({ ok: false, url: `${origin}/cut.js` })
  })

  it('answers again from its cache, failures included', async () => {
    const fetcher = createUrlFetcher(allowLocal)
    const before = hits.get('/app.js') ?? 0
    const [first, second] = await Promise.all([fetcher.fetchText(`${origin}/app.js`), fetcher.fetchText(`${origin}/app.js`)])
    expect(await fetcher.fetchText(`${origin}/app.js`)).toEqual(first)
    expect(second).toEqual(first)
    expect(hits.get('/app.js')).toBe(before + 1)
    const missing = hits.get('/missing.js') ?? 0
    await fetcher.fetchText(`${origin}/missing.js`)
    await fetcher.fetchText(`${origin}/missing.js`)
    expect(hits.get('/missing.js')).toBe(missing + 1)
  })
})
