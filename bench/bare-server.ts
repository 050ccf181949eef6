// The baseline of the ingestion benchmark (bench/ingest-cpu.ts), in a process of its own so that
// /proc shows its CPU alone: a bare node:http server that reads each POST, JSON.parses it and
// answers 200 "OK", nothing else. `PORT=… node --import tsx bench/bare-server.ts` prints
// "listening <port>" once it accepts connections on 127.0.0.1.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

const server = createServer((req, res) => {
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

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`)
})
