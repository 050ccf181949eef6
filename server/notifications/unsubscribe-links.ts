// One-click unsubscribe links: what they stop (a person, a kind, a project or, for the digest,
// every project) signed with a key this server makes for itself on first use (server_keys), so a
// link needs no sign-in and cannot be made for anyone else or changed to another project. The
// key is in the database, so every process and a restored backup accept the same links.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { notificationKindSchema, type NotificationKind } from '../../contract/notifications.ts'
import { queryRows, type Db } from '../db/client.ts'
import { ValidationError } from '../failures.ts'
import type { PayloadUrls } from '../webhooks/payload.ts'

export interface UnsubscribeSubject {
  userId: string
  /** Null: every project (the digest's link). */
  projectId: string | null
  kind: NotificationKind
}

const KEY_NAME = 'unsubscribe-links'
const keys = new WeakMap<Db, Promise<Buffer>>()

/** This server's signing key, made at first use (the first process to insert it wins). */
export function unsubscribeKey(db: Db): Promise<Buffer> {
  let key = keys.get(db)
  if (!key) {
    key = (async () => {
      await db.execute(sql`INSERT INTO server_keys (name, key) VALUES (${KEY_NAME}, ${randomBytes(32).toString('base64')}) ON CONFLICT (name) DO NOTHING`)
      const [row] = await queryRows<{ key: string }>(db, sql`SELECT key FROM server_keys WHERE name = ${KEY_NAME}`)
      return Buffer.from(row!.key, 'base64')
    })()
    // A failed read is not kept: the next link tries again.
    key.catch(() => keys.delete(db))
    keys.set(db, key)
  }
  return key
}

const mac = (key: Buffer, body: string) => createHmac('sha256', key).update(body).digest('base64url')

/** The token of an unsubscribe link: the subject, then its signature, both base64url. */
export async function unsubscribeToken(db: Db, subject: UnsubscribeSubject): Promise<string> {
  const body = Buffer.from(JSON.stringify([subject.userId, subject.projectId, subject.kind])).toString('base64url')
  return `${body}.${mac(await unsubscribeKey(db), body)}`
}

const invalid = () => new ValidationError('token: this unsubscribe link is not valid; choose what you get in your notification settings')

/** The subject a token names; 400 for anything not signed by this server. */
export async function readUnsubscribeToken(db: Db, token: string): Promise<UnsubscribeSubject> {
  const [body, signature, extra] = token.split('.')
  if (!body || !signature || extra !== undefined || token.length > 1000) throw invalid()
  const expected = Buffer.from(mac(await unsubscribeKey(db), body))
  const given = Buffer.from(signature)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid()
  const [userId, projectId, kind] = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as [string, string | null, string]
  const parsed = notificationKindSchema.safeParse(kind)
  if (typeof userId !== 'string' || !parsed.success) throw invalid()
  return { userId, projectId: typeof projectId === 'string' ? projectId : null, kind: parsed.data }
}

/** An email's two unsubscribe addresses: the page its link opens, and the one-click POST of List-Unsubscribe. */
export async function unsubscribeLinks(db: Db, urls: PayloadUrls, subject: UnsubscribeSubject): Promise<{ url: string; oneClickUrl: string }> {
  const token = await unsubscribeToken(db, subject)
  return { url: urls.web(`/unsubscribe?token=${token}`), oneClickUrl: urls.web(`/api/notifications/unsubscribe?token=${token}`) }
}
