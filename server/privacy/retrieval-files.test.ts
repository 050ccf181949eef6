// Where retrieval files go follows Database.sharedByProcesses, on either engine.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows, type Database } from '../db/client.ts'
import { createTestDatabase } from '../test-support/test-app.ts'
import { retrievalFileStore, type RetrievalFileStore } from './retrieval-files.ts'

let database: Database
let dataDir: string
beforeAll(async () => {
  database = await createTestDatabase()
  dataDir = mkdtempSync(join(tmpdir(), 'errata-retrieval-files-'))
  await database.execScript(`
    INSERT INTO organizations (id, name, slug) VALUES ('o1', 'Org', 'org');
    INSERT INTO event_data_requests (id, organization_id, status, report_type, filters, created_by_email, created_by_name, created_at)
      VALUES ('r1', 'o1', 'PREPARING', 'json', '{}', 'a@example.com', 'A', now());`)
})
afterAll(async () => {
  await database.close()
  rmSync(dataDir, { recursive: true, force: true })
})

async function writeAndRead(store: RetrievalFileStore, key: string): Promise<string> {
  const writer = await store.create('r1', key)
  await writer.write('{"event":1}\n')
  await writer.finish()
  const stream = await store.open('r1', key)
  return gunzipSync(Buffer.from(await new Response(stream).arrayBuffer())).toString()
}

const piecesOf = async (key: string) =>
  (await queryRows<{ n: number }>(database.db, sql`SELECT count(*)::int AS n FROM event_data_files WHERE file_key = ${key}`))[0]!.n

describe('where retrieval files go', () => {
  it('into DATA_DIR where no other process uses the database', async () => {
    const store = retrievalFileStore({ ...database, sharedByProcesses: false }, dataDir)
    expect(await writeAndRead(store, 'r1-own')).toBe('{"event":1}\n')
    expect(readdirSync(join(dataDir, 'event-data'))).toEqual(['r1-own.jsonl.gz'])
    expect(await piecesOf('r1-own')).toBe(0)
  })

  it('into the database where processes share it, so that any of them can serve the download', async () => {
    const store = retrievalFileStore({ ...database, sharedByProcesses: true }, dataDir)
    expect(await writeAndRead(store, 'r1-shared')).toBe('{"event":1}\n')
    expect(await piecesOf('r1-shared')).toBe(1)
    expect(readdirSync(join(dataDir, 'event-data'))).not.toContain('r1-shared.jsonl.gz')
  })
})
