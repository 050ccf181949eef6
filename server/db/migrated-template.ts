import { createHash, randomBytes } from 'node:crypto'
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { openPglite, openPostgres } from './client.ts'
import { listMigrations, migrate } from './migrate.ts'

// Fresh databases for test files and benchmark runs start from a copy of one already migrated,
// made once per migration set: initdb in WebAssembly plus every migration costs PGlite about
// 3 s a database, and the migrations alone cost PostgreSQL about 1 s, for each of dozens of files.

const TEMPLATE_LOCK_KEY = 7_245_002

/** Names what the copy holds: the migrations' text, and for PGlite its version (the files' format). */
function migrationsKey(extra = ''): string {
  const hash = createHash('sha256').update(extra)
  for (const { name, text } of listMigrations()) hash.update(name).update('\0').update(text).update('\0')
  return hash.digest('hex').slice(0, 16)
}

function pgliteVersion(): string {
  const manifest = join(import.meta.dirname, '../../node_modules/@electric-sql/pglite/package.json')
  return existsSync(manifest) ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version : 'unknown'
}

/**
 * A tarball of a migrated, empty PGlite cluster in the temporary directory, made on first use
 * (written to a private name, then renamed, so concurrent test workers never read half a file).
 */
export async function migratedPgliteSnapshot(): Promise<string> {
  const path = join(tmpdir(), `errata-migrated-pglite-${migrationsKey(pgliteVersion())}.tar`)
  if (existsSync(path)) return path
  const database = await openPglite()
  const partial = `${path}.${process.pid}-${randomBytes(4).toString('hex')}`
  try {
    await migrate(database)
    await database.saveSnapshot!(partial)
    renameSync(partial, path)
  } finally {
    await database.close()
    rmSync(partial, { force: true })
  }
  return path
}

/**
 * The name of a migrated, empty database on the PostgreSQL server at `serverUrl` to copy with
 * `CREATE DATABASE … TEMPLATE`, created on first use. It is built under another name and renamed
 * when complete, under an advisory lock, so concurrent callers wait for one builder and a builder
 * cut off leaves nothing that looks finished.
 */
export async function migratedPostgresTemplate(serverUrl: string, namePrefix: string): Promise<string> {
  const name = `${namePrefix}_template_${migrationsKey()}`
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    await client.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK_KEY])
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])
    if (exists.rowCount) return name
    const building = `${name}_building`
    await client.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`)
    await client.query(`CREATE DATABASE ${building}`)
    const url = new URL(serverUrl)
    url.pathname = `/${building}`
    // Two connections: migrate() holds one for its advisory lock while it runs statements on the other.
    const database = await openPostgres(url.toString(), { maxConnections: 2 })
    try {
      await migrate(database)
    } finally {
      await database.close()
    }
    await client.query(`ALTER DATABASE ${building} RENAME TO ${name}`)
    return name
  } finally {
    await client.end() // also releases the advisory lock
  }
}
