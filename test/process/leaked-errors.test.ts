// Errata as `npm start` runs it keeps serving when a request's code leaks an error (an 'error'
// event nothing listens for, a rejection nothing awaits): it logs it. A backstop; the request
// paths themselves listen for their streams' errors (an upload cut short is the case here).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'node:http'
import { afterAll, expect, it } from 'vitest'
import { errataProcesses, freePort, until } from './errata-process.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'errata-leaked-errors-'))
// A port of this file's own, from the system.
const port = await freePort()
const base = `http://127.0.0.1:${port}`
const errata = errataProcesses(port, dataDir, { NODE_OPTIONS: `--import=${join(import.meta.dirname, 'leak-errors-on-request.mjs')}` })

afterAll(() => {
  errata.killAll()
  rmSync(dataDir, { recursive: true, force: true })
})

/** A multipart upload that ends without its closing boundary, in the middle of a file. */
function truncatedUpload(): Promise<{ status: number; body: string }> {
  const body = `--b\r\nContent-Disposition: form-data; name="apiKey"\r\n\r\n${'0'.repeat(32)}\r\n--b\r\nContent-Disposition: form-data; name="sourceMap"; filename="a.map"\r\n\r\n{"version":3,`
  return new Promise((resolve, reject) => {
    const req = request(`${base}/sourcemap`, { method: 'POST', headers: { 'Content-Type': 'multipart/form-data; boundary=b' } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

it('logs an error a request leaked and goes on serving; an upload cut short answers 400', async () => {
  const child = await errata.start()
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))

  // Answered as any unknown path is; the errors leak beside the answer.
  await (await fetch(`${base}/leak`)).text()
  await until(
    () => output.includes('thrown by the test, outside any handler') && output.includes('rejected by the test, with no handler'),
    () => `the leaked errors were not logged:\n${output}`,
    () => (child.exitCode !== null ? `the server exited:\n${output}` : null),
  )
  expect(output).toContain('uncaught exception (a bug; serving goes on)')
  expect(output).toContain('unhandled promise rejection (a bug; serving goes on)')
  expect((await fetch(`${base}/healthz`)).status).toBe(200)

  const upload = await truncatedUpload()
  expect(upload.status).toBe(400)
  expect(JSON.parse(upload.body)).toEqual({ errors: ['body: ends before its closing boundary: the upload is incomplete'] })
  expect((await fetch(`${base}/healthz`)).status).toBe(200)
  expect(child.exitCode).toBeNull()
  await errata.stop(child)
})
