import { and, desc, eq } from 'drizzle-orm'
import type { AuthToken, CreatedToken } from '../../contract/tokens.ts'
import { createToken, revokeToken, tokenWorks } from '../auth/tokens.ts'
import type { Db } from '../db/client.ts'
import { authTokens } from '../db/schema.ts'
import { NotFoundError } from '../failures.ts'

type TokenRow = Pick<typeof authTokens.$inferSelect, 'id' | 'description' | 'createdAt' | 'lastUsedAt'>

function toAuthToken(row: TokenRow, currentTokenId: string | null): AuthToken {
  return {
    id: row.id,
    description: row.description,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    current: row.id === currentTokenId,
  }
}

const tokenColumns = {
  id: authTokens.id,
  description: authTokens.description,
  createdAt: authTokens.createdAt,
  lastUsedAt: authTokens.lastUsedAt,
}

/** The caller's tokens that still work, newest first (auth_tokens_user_idx). */
export async function listTokens(db: Db, userId: string, currentTokenId: string | null): Promise<AuthToken[]> {
  const rows = await db
    .select(tokenColumns)
    .from(authTokens)
    .where(and(eq(authTokens.userId, userId), tokenWorks))
    .orderBy(desc(authTokens.createdAt), desc(authTokens.id))
  return rows.map((row) => toAuthToken(row, currentTokenId))
}

/** A new personal token; the answer is the only time its secret is shown. */
export async function createPersonalToken(
  db: Db,
  userId: string,
  currentTokenId: string | null,
  description: string,
): Promise<CreatedToken> {
  const { id, token } = await createToken(db, userId, description)
  const [row] = await db.select(tokenColumns).from(authTokens).where(eq(authTokens.id, id))
  if (!row) throw new NotFoundError('Token')
  return { ...toAuthToken(row, currentTokenId), token }
}

/** Revokes one of the caller's tokens (the current one too: that signs this client out). 404 for anyone else's. */
export async function revokePersonalToken(db: Db, userId: string, tokenId: string): Promise<void> {
  if (!(await revokeToken(db, userId, tokenId))) throw new NotFoundError('Token')
}
