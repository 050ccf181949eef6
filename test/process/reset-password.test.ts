// The operator's way back into a lost account: `npm run errata -- reset-password EMAIL`, run
// beside the server's data (server/cli/errata.ts). On the embedded database only while Errata is
// stopped (one process per DATA_DIR); on PostgreSQL (TEST_DATABASE_URL) any time.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { errataProcesses, freePorts, runErrataCommand, type ErrataProcesses } from './errata-process.ts'

const adminEmail = 'ops@example.com'
const adminToken = 'r'.repeat(40)
const serverUrl = process.env.TEST_DATABASE_URL
// This file's own data directories and ports: the embedded database's, and PostgreSQL's process.
const embeddedDir = mkdtempSync(join(tmpdir(), 'errata-reset-'))
const postgresDir = mkdtempSync(join(tmpdir(), 'errata-reset-pg-'))
const [embeddedPort, postgresPort] = (await freePorts(2)) as [number, number]
const scratchName = `errata_reset_${randomBytes(6).toString('hex')}`
const adminEnv = { ERRATA_ADMIN_EMAIL: adminEmail, ERRATA_ADMIN_TOKEN: adminToken }
const embedded = errataProcesses(embeddedPort, embeddedDir, adminEnv)
let postgres: ErrataProcesses | undefined

async function onServer(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

afterAll(async () => {
  embedded.killAll()
  postgres?.killAll()
  rmSync(embeddedDir, { recursive: true, force: true })
  rmSync(postgresDir, { recursive: true, force: true })
  if (serverUrl) await onServer(`DROP DATABASE IF EXISTS ${scratchName} WITH (FORCE)`)
})

const signIn = (port: number, email: string, password: string) =>
  fetch(`http://127.0.0.1:${port}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email, password }) })

/** The status of GET /api/user with an auth token. */
const userStatus = async (port: number, token: string) =>
  (await fetch(`http://127.0.0.1:${port}/api/user`, { headers: { Authorization: `token ${token}`, 'X-Version': '2' } })).status

/** The password a framed notice shows. */
function shownPassword(output: string): string {
  const password = /^\|\s+password:\s+(\S+)\s+\|$/m.exec(output)?.[1]
  if (!password) throw new Error(`no password shown in:\n${output}`)
  return password
}

it('is the documented command, npm run errata', () => {
  const scripts = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')).scripts
  expect(scripts.errata).toBe('node --import tsx server/cli/errata.ts')
})

// The PostgreSQL run (TEST_DATABASE_URL) has the PostgreSQL case; the embedded cases run without it.
if (!serverUrl) describe('reset-password on the embedded database', { timeout: 300_000 }, () => {
  it('on a stopped data directory sets a new password that signs in, and signs the old sessions out', async () => {
    const first = await embedded.start()
    const started = embedded.output(first)
    // The first admin's credentials come after the line saying Errata runs, framed.
    expect(started).toMatch(/Errata is running at \S+\n\n\+-+\+\n\|\s+First admin created\. Shown only once: store these now\.\s+\|\n/)
    expect(started).toContain(`|  email:       ${adminEmail}`)
    expect(started).toContain(`|  auth token:  as set in ERRATA_ADMIN_TOKEN`)
    const firstPassword = shownPassword(started)
    const session = await signIn(embeddedPort, adminEmail, firstPassword)
    expect(session.status).toBe(200)
    const { token: sessionToken } = (await session.json()) as { token: string }
    await embedded.stop(first)

    const env = { DATA_DIR: embeddedDir, DATABASE_URL: '' }
    const unknown = await runErrataCommand(['reset-password', 'nobody@example.com'], env)
    expect(unknown).toMatchObject({ code: 1, stderr: 'errata reset-password: no account has the email nobody@example.com\n' })

    const reset = await runErrataCommand(['reset-password', adminEmail.toUpperCase()], env)
    expect(reset.code, reset.stderr).toBe(0)
    expect(reset.stdout).toContain('Shown only once')
    expect(reset.stdout).toContain('1 browser was signed out; personal auth tokens keep working.')
    const newPassword = shownPassword(reset.stdout)
    expect(newPassword).not.toBe(firstPassword)

    const second = await embedded.start()
    expect((await signIn(embeddedPort, adminEmail, newPassword)).status).toBe(200)
    expect((await signIn(embeddedPort, adminEmail, firstPassword)).status).toBe(401)
    expect(await userStatus(embeddedPort, sessionToken)).toBe(401)
    expect(await userStatus(embeddedPort, adminToken)).toBe(200)
    await embedded.stop(second)
  })

  it('refuses while Errata runs on the data directory, changing nothing', async () => {
    const running = await embedded.start()
    const refused = await runErrataCommand(['reset-password', adminEmail], { DATA_DIR: embeddedDir, DATABASE_URL: '' })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(new RegExp(`^errata reset-password: Errata is running on DATA_DIR ${embeddedDir} \\(pid ${running.pid}\\): stop Errata first`))
    expect(refused.stdout).not.toContain('password:')
    // The server goes on, its data directory still its own.
    expect(await userStatus(embeddedPort, adminToken)).toBe(200)
    await embedded.stop(running)
  })
})

if (serverUrl) describe('reset-password on PostgreSQL', { timeout: 300_000 }, () => {
  it('runs beside a running server, which takes the new password at once', async () => {
    await onServer(`CREATE DATABASE ${scratchName}`)
    const url = new URL(serverUrl!)
    url.pathname = `/${scratchName}`
    postgres = errataProcesses(postgresPort, postgresDir, { ...adminEnv, DATABASE_URL: url.toString() })
    const running = await postgres.start()
    const firstPassword = shownPassword(postgres.output(running))
    const { token: sessionToken } = (await (await signIn(postgresPort, adminEmail, firstPassword)).json()) as { token: string }
    expect(await userStatus(postgresPort, sessionToken)).toBe(200)

    const reset = await runErrataCommand(['reset-password', adminEmail], { DATA_DIR: postgresDir, DATABASE_URL: url.toString() })
    expect(reset.code, reset.stderr).toBe(0)
    const newPassword = shownPassword(reset.stdout)
    expect(await userStatus(postgresPort, sessionToken)).toBe(401)
    expect(await userStatus(postgresPort, adminToken)).toBe(200)
    expect((await signIn(postgresPort, adminEmail, newPassword)).status).toBe(200)
    expect((await signIn(postgresPort, adminEmail, firstPassword)).status).toBe(401)
    await postgres.stop(running)
  })
})
