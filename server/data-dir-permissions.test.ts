// Tests server/db/data-dir-permissions.ts with the ingest journal beside the database (so it lives above both).
// The data directory holds raw events and the embedded database's configuration: owner-only
// (0700 directories, 0600 files), fixed at start-up when an earlier version left it open, and
// refused when it belongs to another user.
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openDatabase, openPglite } from './db/client.ts'
import { DataDirOwnerError, secureDataDir } from './db/data-dir-permissions.ts'
import { migrate } from './db/migrate.ts'
import { openIngestion } from './ingest/pipeline/open.ts'
import { acceptedRequest } from './ingest/payload/accepted-request.ts'
import { loadConfig } from './config.ts'
import pino from 'pino'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'errata-perms-'))
  dirs.push(dir)
  return dir
}

/** Every entry under `dir` (itself included) whose mode is not owner-only, as "mode path". */
function notPrivate(dir: string): string[] {
  const found: string[] = []
  const visit = (path: string) => {
    const stat = lstatSync(path)
    const mode = stat.mode & 0o777
    if (stat.isDirectory()) {
      if (mode !== 0o700) found.push(`${mode.toString(8)} ${path}`)
      for (const name of readdirSync(path)) visit(join(path, name))
    } else if (stat.isFile() && mode !== 0o600) {
      found.push(`${mode.toString(8)} ${path}`)
    }
  }
  visit(dir)
  return found
}

describe('the data directory', () => {
  // A new cluster (initdb in WebAssembly) and every migration: minutes on a loaded machine.
  it('is created owner-only: the embedded database, its configuration and the ingest journal', { timeout: 240_000 }, async () => {
    const dataDir = join(tempDir(), 'data')
    const database = await openPglite(dataDir)
    try {
      await migrate(database)
      const ingestion = await openIngestion(database, loadConfig({}).ingest, pino({ level: 'silent' }), { journalDir: join(dataDir, 'ingest-journal') })
      await ingestion.write(acceptedRequest('no-such-project', new Date(), Buffer.from('{"events":[{"raw":"event with ada@example.com"}]}'), 1, null))
      await ingestion.close()
    } finally {
      await database.close()
    }
    // The files that were world-readable or writable before: configuration, catalog, journal segments.
    for (const file of ['postgresql.conf', 'pg_hba.conf', 'PG_VERSION']) expect(lstatSync(join(dataDir, file)).mode & 0o777).toBe(0o600)
    expect(readdirSync(join(dataDir, 'ingest-journal')).length).toBeGreaterThan(0)
    expect(readdirSync(join(dataDir, 'base')).length).toBeGreaterThan(0)
    expect(notPrivate(dataDir)).toEqual([])
  })

  it('is made owner-only at start-up when an earlier version left it readable', async () => {
    const dataDir = join(tempDir(), 'data')
    mkdirSync(join(dataDir, 'ingest-journal'), { recursive: true })
    writeFileSync(join(dataDir, 'ingest-journal', 'old-segment'), 'raw events\n')
    chmodSync(join(dataDir, 'ingest-journal', 'old-segment'), 0o644)
    chmodSync(join(dataDir, 'ingest-journal'), 0o755)
    chmodSync(dataDir, 0o777)
    expect(secureDataDir(dataDir)).toBe(3)
    expect(notPrivate(dataDir)).toEqual([])
    // Nothing left to change the next time.
    expect(secureDataDir(dataDir)).toBe(0)
  })

  it('is made owner-only with PostgreSQL too, before the database is connected to', async () => {
    const dataDir = join(tempDir(), 'data')
    mkdirSync(join(dataDir, 'ingest-journal'), { recursive: true })
    writeFileSync(join(dataDir, 'ingest-journal', 'old-segment'), 'raw events\n')
    chmodSync(join(dataDir, 'ingest-journal', 'old-segment'), 0o644)
    chmodSync(join(dataDir, 'ingest-journal'), 0o755)
    chmodSync(dataDir, 0o755)
    // Nothing listens there: the connection is refused after DATA_DIR was seen to.
    await expect(openDatabase({ databaseUrl: 'postgres://errata@127.0.0.1:1/errata', dataDir })).rejects.toThrow(/ECONNREFUSED/)
    expect(notPrivate(dataDir)).toEqual([])
  })

  it('is refused, with a message saying why, when it belongs to another user', async () => {
    let foreign: string
    if (process.getuid!() === 0) {
      foreign = join(tempDir(), 'foreign')
      mkdirSync(foreign, { mode: 0o755 })
      chownSync(foreign, 65534, 65534)
    } else {
      // Any directory root owns (a user cannot give one away).
      foreign = '/'
    }
    const owner = lstatSync(foreign).uid
    expect(() => secureDataDir(foreign)).toThrow(DataDirOwnerError)
    expect(() => secureDataDir(foreign)).toThrow(`DATA_DIR ${foreign} is owned by another user (uid ${owner}), not by the user Errata runs as (uid ${process.getuid!()})`)
    await expect(openPglite(foreign)).rejects.toThrow(DataDirOwnerError)
    // Nothing was written there, nor its permissions changed.
    if (foreign !== '/') {
      expect(readdirSync(foreign)).toEqual([])
      expect(lstatSync(foreign).mode & 0o777).toBe(0o755)
    }
  })
})
