// The fallback load generator of bench/ingest-cpu.ts when wrk is not installed, in a process of
// its own so that its CPU (80–210 µs per request) stays out of the servers' /proc readings.
// Sends exactly `amount` POST /notify requests (autocannon's amount mode answers every request it
// sends before finishing, so nothing is left in flight), and prints one line "bench-result {json}"
// with the same fields as bench/wrk-notify.lua.
//   node --import tsx bench/autocannon-load.ts '{"url","apiKey","bodiesFile","connections","amount","sentAt"}'
import { readFileSync } from 'node:fs'
import autocannon from 'autocannon'

const options = JSON.parse(process.argv[2] ?? '{}') as {
  url: string
  apiKey: string
  bodiesFile: string
  connections: number
  amount: number
  sentAt: string
}
const headers = {
  'Content-Type': 'application/json',
  'Bugsnag-Api-Key': options.apiKey,
  'Bugsnag-Payload-Version': '4',
  'Bugsnag-Sent-At': options.sentAt,
}
const requests = readFileSync(options.bodiesFile, 'utf8')
  .split('\n')
  .filter((body) => body.length > 0)
  .map((body) => ({ method: 'POST', path: '/notify', headers, body }))

let ok = 0
let non2xx = 0
let lastMs = 0
const firstMs = Date.now()
const instance = autocannon(
  { url: options.url, connections: options.connections, amount: Math.max(options.amount, options.connections), requests, timeout: 30 },
  (err, result) => {
    if (err) throw err
    const line = {
      sent: result.requests.sent,
      ok,
      non2xx,
      firstMs,
      lastMs,
      socketErrors: result.errors - result.timeouts,
      timeouts: result.timeouts,
      latencyP50Us: result.latency.p50 * 1000,
      latencyP99Us: result.latency.p99 * 1000,
    }
    process.stdout.write(`bench-result ${JSON.stringify(line)}\n`)
  },
)
instance.on('response', (_client, statusCode) => {
  lastMs = Date.now()
  if (statusCode >= 200 && statusCode < 300) ok++
  else non2xx++
})
