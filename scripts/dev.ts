// `npm run dev`: the API server (restarting on change) and Vite's dev server (which proxies /api,
// /notify, /sessions … to it, see vite.config.ts), with prefixed output; Ctrl-C stops both.
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const apiPort = process.env.PORT ?? '8080'
const vitePort = process.env.VITE_PORT ?? '5173'

interface Service {
  name: string
  color: number
  command: string
  args: string[]
  env?: Record<string, string>
}

const services: Service[] = [
  {
    name: 'server',
    color: 36,
    // A single node process (not npx tsx), so one signal stops it; --watch restarts it when an imported file changes.
    command: process.execPath,
    args: ['--import', 'tsx', '--watch', '--watch-preserve-output', 'server/main.ts'],
    env: { PORT: apiPort },
  },
  {
    name: 'vite',
    color: 35,
    command: process.execPath,
    args: ['node_modules/vite/bin/vite.js', '--port', vitePort, '--strictPort'],
    env: { ERRATA_DEV_API: `http://127.0.0.1:${apiPort}` },
  },
]

const width = Math.max(...services.map((service) => service.name.length))
const children = new Map<string, ChildProcess>()
let stopping = false

function pipeLines(stream: NodeJS.ReadableStream, prefix: string, out: NodeJS.WriteStream): void {
  createInterface({ input: stream }).on('line', (line) => out.write(`${prefix} ${line}\n`))
}

function start(service: Service): void {
  const prefix = `\x1b[${service.color}m${service.name.padEnd(width)} |\x1b[0m`
  const child = spawn(service.command, service.args, {
    cwd: root,
    env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? '1', ...service.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.set(service.name, child)
  pipeLines(child.stdout!, prefix, process.stdout)
  pipeLines(child.stderr!, prefix, process.stderr)
  child.on('exit', (code, signal) => {
    children.delete(service.name)
    if (stopping) return
    // One half without the other is not a working dev setup: stop everything and say why.
    process.stderr.write(`${prefix} exited (${signal ?? `code ${code}`}); stopping the others\n`)
    stop(code && code !== 0 ? code : 1)
  })
}

function stop(exitCode: number): void {
  if (stopping) return
  stopping = true
  for (const child of children.values()) child.kill('SIGTERM')
  // The server finishes in-flight requests on SIGTERM; do not wait forever for it.
  const force = setTimeout(() => {
    for (const child of children.values()) child.kill('SIGKILL')
    process.exit(exitCode)
  }, 5000)
  force.unref()
  const waitForExit = setInterval(() => {
    if (children.size > 0) return
    clearInterval(waitForExit)
    process.exit(exitCode)
  }, 50)
}

process.on('SIGINT', () => stop(0))
process.on('SIGTERM', () => stop(0))

process.stdout.write(`Errata dev: dashboard http://127.0.0.1:${vitePort}  (API server on :${apiPort})\n`)
for (const service of services) start(service)
