// The baseline: a bare node:http server that reads and JSON.parses each POST and answers 200, nothing else.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { watchLoadWindow, type LoadWindow } from './load-window.ts'

export async function startBareServer(): Promise<{ url: string; window: LoadWindow; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { events?: unknown[] }
        if (!Array.isArray(body.events)) throw new Error('no events')
        res.writeHead(200, { 'Content-Type': 'text/plain' }).end('OK')
      } catch {
        res.writeHead(400).end('bad JSON')
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    window: watchLoadWindow(server),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
