// Backups of the embedded database (PGlite): one gzip'd tar holding a manifest, the cluster as
// they are on disk (pgdata/, copied between two transactions) and what lives beside it in DATA_DIR that matters, the ingest
// journal (acknowledged events not yet indexed) and privacy retrieval files. The copy is made
// by the process that has the database open: the server, asked through its operator socket
// (backup-socket.ts), or the CLI when no server runs. PostgreSQL has pg_dump
// (docs/operations.md, "Backups and restore").
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import type { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import * as tar from 'tar'
import { openPglite, queryRows, type Database } from '../db/client.ts'
import { DataDirInUseError, LOCK_FILE, lockDataDir } from '../db/data-dir-lock.ts'
import { eventDataDir, journalDir, RETRIEVAL_FILE_SUFFIX } from '../db/data-dir-layout.ts'
import { makePrivate } from '../db/data-dir-permissions.ts'
import { listMigrations } from '../db/migrate.ts'

/** A backup that cannot be made or restored as asked: said in one line. */
export class BackupError extends Error {}

/** What a backup says about itself (manifest.json, its first entry). */
export interface BackupManifest {
  format: 1
  /** The Errata release that made it (package.json). */
  errata_version: string
  /** The last migration its database had: a newer Errata applies the later ones at start. */
  schema: string
  created_at: string
}

const MANIFEST = 'manifest.json'
const CLUSTER = 'pgdata'
const JOURNAL = 'ingest-journal'
const EVENT_DATA = 'event-data'
const ENTRIES = [MANIFEST, CLUSTER, JOURNAL, EVENT_DATA]
const STAGING_PREFIX = 'backup-'

const errataVersion = (): string =>
  (JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as { version: string }).version

async function lastMigration(database: Database): Promise<string> {
  const [row] = await queryRows<{ name: string | null }>(database.db, sql`SELECT max(name) AS name FROM schema_migrations`)
  if (!row?.name) throw new BackupError('the database has no schema yet: start Errata on it once first')
  return row.name
}

/**
 * Stages a backup of `database` (open on `dataDir`) in a directory inside `dataDir` (the same file
 * system: finished retrieval files are hard-linked, not copied, while writes wait;
 * Database.stageBackup). The caller archives it (archiveOf) and removes it.
 */
export async function stageBackup(database: Database, dataDir: string): Promise<{ dir: string; manifest: BackupManifest }> {
  if (!database.stageBackup) throw new BackupError(`the ${database.engine} database is backed up with its own tools (docs/operations.md, "Backups and restore")`)
  const schema = await lastMigration(database)
  // One backup at a time holds the database (the server's socket takes one request at a time;
  // the CLI holds DATA_DIR): another staging directory is left by a process that stopped mid-way.
  for (const entry of readdirSync(dataDir)) {
    if (entry.startsWith(STAGING_PREFIX)) await rm(join(dataDir, entry), { recursive: true, force: true })
  }
  const dir = await mkdtemp(join(dataDir, STAGING_PREFIX))
  try {
    const manifest: BackupManifest = { format: 1, errata_version: errataVersion(), schema, created_at: new Date().toISOString() }
    await database.stageBackup(dir, [
      // Appended to while the server runs: copied as it is at that moment.
      { from: journalDir(dataDir), to: JOURNAL, copy: true },
      // Finished retrieval files only (a partial one is removed at start anyway).
      { from: eventDataDir(dataDir), to: EVENT_DATA, suffix: RETRIEVAL_FILE_SUFFIX },
    ])
    await writeFile(join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 })
    return { dir, manifest }
  } catch (err) {
    await rm(dir, { recursive: true, force: true })
    throw err
  }
}

/** The staged backup in `dir` as a gzip'd tar, manifest first. */
export function archiveOf(dir: string) {
  return tar.create({ gzip: true, cwd: dir, portable: true }, ENTRIES)
}

/** Stages a backup of `database` and writes its archive into `sink`. */
export async function writeBackup(database: Database, dataDir: string, sink: Writable): Promise<BackupManifest> {
  const { dir, manifest } = await stageBackup(database, dataDir)
  try {
    await pipeline(archiveOf(dir), sink)
    return manifest
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/**
 * Reads `file` through (which checks the gzip and tar framing end to end) and returns its
 * manifest; BackupError when it is not a whole Errata backup.
 */
export async function readBackupManifest(file: string): Promise<BackupManifest> {
  let manifestText = ''
  let hasCluster = false
  try {
    await tar.list({
      file,
      strict: true,
      onReadEntry: (entry) => {
        if (entry.path === MANIFEST) entry.on('data', (chunk: Buffer) => (manifestText += chunk.toString('utf8')))
        else {
          if (entry.path === `${CLUSTER}/PG_VERSION`) hasCluster = true
          entry.resume()
        }
      },
    })
  } catch (err) {
    throw new BackupError(`${file} is not a readable Errata backup (${(err as Error).message})`)
  }
  let manifest: Partial<BackupManifest> = {}
  try {
    manifest = JSON.parse(manifestText) as Partial<BackupManifest>
  } catch {
    // reported below
  }
  if (manifest.format !== 1 || typeof manifest.schema !== 'string' || !hasCluster) {
    throw new BackupError(`${file} is not an Errata backup (no manifest and database in it)`)
  }
  return manifest as BackupManifest
}

/**
 * Restores the backup `file` into `dataDir`, which must be empty or absent (and so no server
 * runs on it). The database starts once on it (PostgreSQL replays what the copy needs) and is left
 * at the backup's schema: the next server start applies later migrations.
 */
export async function restoreBackup(file: string, dataDir: string, logLevel = 'warn'): Promise<BackupManifest> {
  const target = resolve(dataDir)
  const present = existsSync(target) ? readdirSync(target) : []
  if (present.length > 0) {
    if (present.includes(LOCK_FILE)) {
      try {
        lockDataDir(target).release() // free: only a left-over pid file
      } catch (err) {
        if (err instanceof DataDirInUseError) throw new BackupError(`Errata is running on DATA_DIR ${target} (pid ${err.pid}): restore into an empty DATA_DIR, with no server on it`)
        throw err
      }
    }
    throw new BackupError(`DATA_DIR ${target} is not empty: restore into an empty or new directory (and point DATA_DIR at it)`)
  }
  const manifest = await readBackupManifest(file)
  const known = listMigrations().map((migration) => migration.name)
  if (!known.includes(manifest.schema)) {
    throw new BackupError(
      `${file} was made by a newer Errata (${manifest.errata_version}, schema ${manifest.schema}); this one knows up to ${known.at(-1)}: restore it with that release or a later one`,
    )
  }
  // Unpacked beside DATA_DIR (same file system, so its parts are moved in, not copied).
  await mkdir(dirname(target), { recursive: true })
  const unpacked = await mkdtemp(join(dirname(target), `.${basename(target)}.restore-`))
  const existed = existsSync(target)
  let database: Database | undefined
  try {
    await tar.extract({ file, cwd: unpacked, strict: true, filter: (path) => ENTRIES.includes(path.split('/')[0]!) })
    await mkdir(target, { recursive: true, mode: 0o700 })
    for (const entry of readdirSync(join(unpacked, CLUSTER))) await rename(join(unpacked, CLUSTER, entry), join(target, entry))
    for (const [name, to] of [[JOURNAL, journalDir(target)], [EVENT_DATA, eventDataDir(target)]] as const) {
      if (existsSync(join(unpacked, name))) await rename(join(unpacked, name), to)
    }
    // Started once: the copy's last checkpoint is replayed now, and a damaged copy is found now.
    database = await openPglite(target, logLevel)
    const schema = await lastMigration(database)
    if (schema !== manifest.schema) throw new BackupError(`${file}: its database has schema ${schema}, its manifest says ${manifest.schema}`)
    makePrivate(target, true)
    await database.close()
    database = undefined
    return manifest
  } catch (err) {
    await database?.close().catch(() => undefined)
    // DATA_DIR was empty: what is in it now is this restore's.
    if (existed) for (const entry of readdirSync(target)) await rm(join(target, entry), { recursive: true, force: true })
    else await rm(target, { recursive: true, force: true })
    throw err
  } finally {
    await rm(unpacked, { recursive: true, force: true })
  }
}

/** The backup's manifest, for a command's output. */
export const describeManifest = (manifest: BackupManifest) =>
  `Errata ${manifest.errata_version}, schema ${manifest.schema}, made at ${manifest.created_at}`

