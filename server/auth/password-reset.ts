// "Forgot password": a link emailed to the account's address (only its token's hash is stored)
// that works once and for Config.passwordResetMs, through which its holder sets a new password.
// Asking answers alike whether or not an account has the email; the routes throttle it.
import { and, eq, isNull, sql } from 'drizzle-orm'
import { withTransaction, type Db } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { authTokens, passwordResets, users } from '../db/schema.ts'
import { Failure, ValidationError } from '../failures.ts'
import { enqueueMail } from '../mail/mail.jobs.ts'
import type { MailDeps } from '../mail/mail-deps.ts'
import { renderEmail } from '../mail/render.ts'
import { hashPassword } from './passwords.ts'
import { generateToken, hashToken } from './tokens.ts'

export const EMAIL_OFF_MESSAGE =
  'email is off on this server: ask an admin to reset your password (npm run errata -- reset-password EMAIL)'

/** The dashboard page the emailed link opens. */
export const resetPasswordPath = (token: string) => `/reset-password?token=${token}`

/**
 * Emails a reset link when an account has `email` (any case); nothing otherwise, and the caller
 * cannot tell which. 503 when email is off.
 */
export async function requestPasswordReset(db: Db, mail: MailDeps, lifetimeMs: number, email: string): Promise<void> {
  if (!mail.transport) throw new Failure('unavailable', [EMAIL_OFF_MESSAGE])
  const [user] = await db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(sql`lower(${users.email}) = lower(${email.trim()})`)
    .limit(1)
  if (!user) return
  const token = generateToken()
  const now = mail.clock()
  const minutes = Math.round(lifetimeMs / 60_000)
  await withTransaction(db, async (tx) => {
    await tx.insert(passwordResets).values({
      id: newId(now.getTime()),
      userId: user.id,
      tokenHash: hashToken(token),
      createdAt: now,
      expiresAt: new Date(now.getTime() + lifetimeMs),
    })
    await enqueueMail(
      tx,
      mail,
      user.email,
      'password-reset',
      renderEmail({
        subject: 'Reset your Errata password',
        heading: 'Reset your password',
        paragraphs: [
          `Someone, hopefully you, asked to reset the password of the Errata account ${user.email}.`,
          `The link below works once, for the next ${minutes === 60 ? 'hour' : `${minutes} minutes`}.`,
        ],
        action: { label: 'Choose a new password', url: mail.urls.web(resetPasswordPath(token)) },
        footer: ['If you did not ask for this, ignore this email: your password stays as it is.'],
      }),
    )
  })
  mail.wakeJobs()
}

const unknownLink = () => new ValidationError('token: this link is not valid; ask for a new one on the sign-in page')

/**
 * Sets the password of the link's account, uses up all its reset links and ends its dashboard
 * sign-ins (as `npm run errata -- reset-password` does). 400 for an unknown link, 410 for a used
 * or expired one.
 */
export async function confirmPasswordReset(db: Db, token: string, password: string): Promise<void> {
  const tokenHash = hashToken(token)
  const find = (tx: Db) => tx.select().from(passwordResets).where(eq(passwordResets.tokenHash, tokenHash)).limit(1)
  // Checked before hashing, so a bad link costs no scrypt work.
  const [found] = await find(db)
  if (!found) throw unknownLink()
  const passwordHash = await hashPassword(password)
  await withTransaction(db, async (tx) => {
    // Locked: a double submit sets the password once; the second finds it used.
    const [reset] = await find(tx).for('update')
    if (!reset) throw unknownLink()
    if (reset.usedAt) throw new Failure('gone', ['token: this link was already used; ask for a new one on the sign-in page'])
    if (reset.expiresAt.getTime() <= Date.now()) throw new Failure('gone', ['token: this link has expired; ask for a new one on the sign-in page'])
    await tx.update(users).set({ passwordHash }).where(eq(users.id, reset.userId))
    await tx
      .update(passwordResets)
      .set({ usedAt: sql`now()` })
      .where(and(eq(passwordResets.userId, reset.userId), isNull(passwordResets.usedAt)))
    await tx
      .update(authTokens)
      .set({ revokedAt: sql`now()` })
      .where(and(eq(authTokens.userId, reset.userId), eq(authTokens.kind, 'sign_in'), isNull(authTokens.revokedAt)))
  })
}
