// Errata as `npm start` runs it (server/main.ts in a child process) for the process tests that
// kill it and start it again on the same data directory.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { createServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'

const root = join(import.meta.dirname, '../..')

/** Polls `condition` until it holds; `failure` says why it never did, `abort` stops early. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  failure: () => string,
  abort: () => string | null = () => null,
  timeoutMs = 60_000,
  everyMs = 10,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await condition()) return
    const stop = abort()
    if (stop) throw new Error(stop)
    if (Date.now() > deadline) throw new Error(failure())
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
}

/**
 * `count` distinct ports the system has just handed out as free (it picks one for port 0), for
 * server processes of this test: the server prints the port it was told, so it is given a real one
 * rather than 0. All are held open at once, so none is handed out twice.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer())
  await Promise.all(servers.map((server) => new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve))))
  const ports = servers.map((server) => (server.address() as AddressInfo).port)
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))
  return ports
}

export const freePort = async (): Promise<number> => (await freePorts(1))[0]!

export interface ErrataProcesses {
  /** Starts Errata and resolves once it says it is running. */
  start(): Promise<ChildProcessWithoutNullStreams>
  killHard(child: ChildProcessWithoutNullStreams): Promise<void>
  stop(child: ChildProcessWithoutNullStreams): Promise<void>
  /** Everything a started process printed so far, stdout and stderr together. */
  output(child: ChildProcessWithoutNullStreams): string
  /** Kills whatever is still running (afterAll, also after a failure). */
  killAll(): void
}

/** Errata processes on `port` and `dataDir` (embedded database), with `env` added to the environment. */
export function errataProcesses(port: number, dataDir: string, env: Record<string, string>): ErrataProcesses {
  const children = new Set<ChildProcessWithoutNullStreams>()
  const outputs = new WeakMap<ChildProcessWithoutNullStreams, () => string>()
  const exited = (child: ChildProcessWithoutNullStreams) => new Promise((resolve) => child.once('exit', resolve))
  return {
    async start() {
      const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
        cwd: root,
        env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn', ...env },
      })
      children.add(child)
      let output = ''
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
      outputs.set(child, () => output)
      await until(
        () => output.includes('Errata is running'),
        () => `the server did not start:\n${output}`,
        () => (child.exitCode !== null ? `the server exited early:\n${output}` : null),
        // A start on a loaded machine (other test files running beside it) can take a minute.
        120_000,
      )
      return child
    },
    async killHard(child) {
      const done = exited(child)
      child.kill('SIGKILL')
      await done
      children.delete(child)
    },
    async stop(child) {
      const done = exited(child)
      child.kill('SIGTERM')
      await done
      children.delete(child)
    },
    output(child) {
      return outputs.get(child)?.() ?? ''
    },
    killAll() {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
    },
  }
}

/**
 * Runs an operator command as `npm run errata -- <args>` runs it (server/cli/errata.ts) with
 * `env` added to the environment, and resolves once it exits: its status and what it printed.
 */
export function runErrataCommand(args: readonly string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/errata.ts', ...args], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, stdout, stderr }))
  })
}
