// The address guard of outbound requests, table-driven: every way of writing a loopback, private
// or link-local address (IPv4 shorthands, IPv4 inside IPv6) is refused by webhooks and source-map
// fetching alike, before anything connects.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ValidationError } from '../failures.ts'
import { isPublicAddress, mayConnect } from './address-guard.ts'
import { parseAllowList } from './allow-list.ts'
import { createUrlFetcher } from '../symbolication/fetch-url.ts'
import { sendDelivery } from '../webhooks/send.ts'
import { checkTargetUrl } from '../webhooks/target-url.ts'

const notPublic: [string, string][] = [
  ['127.0.0.1', 'loopback'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'link-local (cloud metadata)'],
  ['100.64.0.1', 'carrier-grade NAT'],
  ['0.0.0.0', 'unspecified'],
  ['224.0.0.1', 'multicast'],
  ['::1', 'IPv6 loopback'],
  ['::', 'IPv6 unspecified'],
  ['fe80::1', 'IPv6 link-local'],
  ['fd00::1', 'IPv6 unique local'],
  ['::ffff:192.168.1.1', 'IPv4-mapped private'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback, in hex'],
  ['::127.0.0.1', 'IPv4-compatible loopback'],
  ['::7f00:1', 'IPv4-compatible loopback, in hex'],
  ['::10.0.0.1', 'IPv4-compatible private'],
  ['::ffff:0:127.0.0.1', 'IPv4-translated loopback (SIIT)'],
  ['64:ff9b::10.0.0.1', 'NAT64 of a private address'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 of the cloud metadata address'],
  ['64:ff9b:1::a00:1', 'local-use NAT64 prefix'],
  ['2002:7f00:1::', '6to4 of loopback'],
  ['2002:c0a8:101::1', '6to4 of 192.168.1.1'],
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo'],
  ['not an address', 'not an address'],
]
const isPublic: [string, string][] = [
  ['93.184.216.34', 'public IPv4'],
  ['2606:2800:220:1:248:1893:25c8:1946', 'public IPv6'],
  ['::ffff:93.184.216.34', 'IPv4-mapped public'],
  ['64:ff9b::5db8:d822', 'NAT64 of a public address (DNS64 networks)'],
  ['2002:5db8:d822::1', '6to4 of a public address'],
]

describe('which addresses are public', () => {
  it.each(notPublic)('%s (%s) is not', (address) => expect(isPublicAddress(address)).toBe(false))
  it.each(isPublic)('%s (%s) is', (address) => expect(isPublicAddress(address)).toBe(true))

  it('an allow-list entry lets an address through however it is written', () => {
    const allow = parseAllowList('localhost,10.0.0.0/8,::1')
    const table: [string, string, boolean][] = [
      ['cdn.internal', '10.4.5.6', true],
      ['cdn.internal', '::ffff:10.0.0.1', true],
      ['cdn.internal', '64:ff9b::10.0.0.1', true],
      ['cdn.internal', '::10.0.0.1', true],
      ['cdn.internal', '192.168.1.1', false],
      ['cdn.internal', '::ffff:192.168.1.1', false],
      ['LOCALHOST', '127.0.0.1', true],
      ['[::1]', '::1', true],
      ['x', '::1', true],
      ['x', '127.0.0.1', false],
      ['x', 'not an address', false],
    ]
    for (const [host, address, expected] of table) expect(mayConnect(allow, host, address), `${host} → ${address}`).toBe(expected)
  })
})

describe('webhook targets and fetched source maps refuse every form of a local address', () => {
  let server: Server
  let port: number
  let hits = 0
  beforeAll(async () => {
    // A live server on loopback: a URL the guard let through would reach it.
    server = createServer((_req, res) => {
      hits += 1
      res.end('reached')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  const hosts = [
    '127.0.0.1',
    '127.1',
    '0x7f.0.0.1',
    '2130706433',
    '[::1]',
    '[::127.0.0.1]',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '[0:0:0:0:0:ffff:7f00:1]',
    '[::ffff:0:127.0.0.1]',
    '[64:ff9b::127.0.0.1]',
    '[2002:7f00:1::]',
    '[::ffff:169.254.169.254]',
    '[64:ff9b::a9fe:a9fe]',
    '[::10.0.0.1]',
  ]

  it.each(hosts)('http://%s/ is refused when saved, delivered to and fetched', async (host) => {
    const url = `http://${host}:${port}/hook`
    await expect(checkTargetUrl(url, [])).rejects.toThrow(ValidationError)
    await expect(checkTargetUrl(url, [])).rejects.toThrow(/loopback, link-local or private address; an operator may allow it with ERRATA_WEBHOOK_ALLOW/)

    const delivery = { id: 'd', body: '{}', secret: 's', trigger: 'exception' }
    const outcome = await sendDelivery(url, delivery, new Date(), { allow: [], timeoutMs: 5000, maxResponseBytes: 1024 })
    expect(outcome).toMatchObject({ status: null, retryable: false, error: expect.stringMatching(/loopback, link-local or private address \(allow it with ERRATA_WEBHOOK_ALLOW\)/) })

    const fetched = await createUrlFetcher({ allow: [] }).fetchText(url)
    expect(fetched).toMatchObject({ ok: false, reason: expect.stringMatching(/loopback, link-local or private address \(allow it with ERRATA_FETCH_ALLOW\)/) })
    expect(hits).toBe(0)
  })
})
