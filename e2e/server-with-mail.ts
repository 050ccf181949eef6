// An Errata server of a spec's own, with email on through a real SMTP server the spec starts, so
// emails are read the way a person would open them. Its own port and data directory; stop() ends
// the server, the SMTP server and removes the data, whatever happened in the spec.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { expect } from '@playwright/test'
import { startTestSmtpServer, type TestSmtpServer } from '../server/test-support/smtp-server.ts'

export interface ServerWithMail {
  baseURL: string
  smtp: TestSmtpServer
  stop(): Promise<void>
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })

/** Starts it with `admin` as the first admin; resolves once it answers /healthz. */
export async function startServerWithMail(admin: { email: string; password: string }, name: string): Promise<ServerWithMail> {
  const smtp = await startTestSmtpServer()
  mkdirSync('.tmp', { recursive: true })
  const dataDir = mkdtempSync(join('.tmp', `e2e-${name}-`))
  const port = await freePort()
  const baseURL = `http://127.0.0.1:${port}`
  const server = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ERRATA_PUBLIC_URL: baseURL,
      ERRATA_ADMIN_EMAIL: admin.email,
      ERRATA_ADMIN_PASSWORD: admin.password,
      ERRATA_SMTP_URL: smtp.url,
      ERRATA_SMTP_CA: smtp.caFile,
      ERRATA_MAIL_FROM: 'Errata <errata@example.com>',
      ERRATA_FETCH_SOURCES: 'false',
      LOG_LEVEL: 'warn',
    },
    stdio: 'ignore',
  })
  const stop = async () => {
    if (server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve))
      server.kill('SIGTERM')
      await exited
    }
    await smtp.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
  try {
    await expect
      .poll(async () => (await fetch(`${baseURL}/healthz`).catch(() => null))?.status ?? 0, { timeout: 150_000, intervals: [500] })
      .toBe(200)
  } catch (err) {
    await stop()
    throw err
  }
  return { baseURL, smtp, stop }
}
