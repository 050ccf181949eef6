// Errata as an operator runs it: `npm start`'s server and `npm run errata --` commands as child
// processes, on a data directory and port of the test's own.
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const SERVER = fileURLToPath(new URL('../main.ts', import.meta.url))
const CLI = fileURLToPath(new URL('../cli/errata.ts', import.meta.url))

/** The environment of a child: this process's, without the database settings a test run may carry. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = { ...process.env }
  delete inherited.DATABASE_URL
  delete inherited.TEST_DATABASE_URL
  return { ...inherited, LOG_LEVEL: 'warn', ...env }
}

/** A port nothing listens on now. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

export interface ErrataProcess {
  url: string
  /** What it printed so far (stdout and stderr). */
  output(): string
  /** SIGTERM, then waits for the exit (the data directory is free again). */
  stop(): Promise<void>
}

/** Starts the server with `env` (DATA_DIR…) on `port`; resolves once it says it is running. */
export async function startErrata(port: number, env: Record<string, string>): Promise<ErrataProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', SERVER], {
    cwd: ROOT,
    env: childEnv({ HOST: '127.0.0.1', PORT: String(port), ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (output.includes('Errata is running at')) resolve()
    }
    child.stdout!.on('data', check)
    child.once('exit', (code) => reject(new Error(`Errata exited (${code}) before it ran:\n${output}`)))
  })
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}

export interface CommandResult {
  code: number
  stdout: string
  stderr: string
}

/** Runs `npm run errata -- ...args` with `env` (DATA_DIR…). */
export function runErrataCommand(args: string[], env: Record<string, string>): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd: ROOT, env: childEnv(env), timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr })
    })
  })
}
