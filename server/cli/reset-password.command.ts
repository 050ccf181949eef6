import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { resetPassword } from '../auth/reset-password.ts'
import { loadConfig } from '../config.ts'
import { openDatabase, type Database } from '../db/client.ts'
import { DataDirInUseError } from '../db/data-dir-lock.ts'
import { CommandError, type Command } from './command.ts'
import { framedNotice } from './framed-notice.ts'

/**
 * The database the server would open, for a command. The embedded database is one process's
 * at a time (server/db/data-dir-lock.ts): a running server keeps the command out. PostgreSQL
 * takes the command beside running servers.
 */
async function openServerDatabase(): Promise<Database> {
  const config = loadConfig()
  if (!config.databaseUrl && !existsSync(join(config.dataDir, 'PG_VERSION'))) {
    throw new CommandError(`DATA_DIR ${config.dataDir} holds no Errata database; set DATA_DIR (and DATABASE_URL) as for the server`)
  }
  try {
    // Quiet: the command's own lines are what the operator reads.
    return await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logLevel: 'warn' })
  } catch (err) {
    if (err instanceof DataDirInUseError) {
      throw new CommandError(`Errata is running on DATA_DIR ${err.dir} (pid ${err.pid}): stop Errata first, then run this again`)
    }
    throw err
  }
}

export const resetPasswordCommand: Command = {
  usage: 'reset-password EMAIL',
  summary: "sets a new random password for the account, shown once, and signs its browsers out",
  async run(args) {
    const email = args[0]?.trim()
    if (!email || args.length > 1) throw new CommandError('give the email of one account: npm run errata -- reset-password EMAIL')
    // Like the server: whatever the embedded database writes is its user's only.
    process.umask(0o077)
    const database = await openServerDatabase()
    try {
      const reset = await resetPassword(database.db, email)
      if (!reset) throw new CommandError(`no account has the email ${email}`)
      const ended = reset.signInsEnded === 1 ? '1 browser was signed out' : `${reset.signInsEnded} browsers were signed out`
      process.stdout.write(
        '\n' +
          framedNotice([
            `New password for ${reset.email}. Shown only once: store it now.`,
            '',
            `email:     ${reset.email}`,
            `password:  ${reset.password}`,
            '',
            `${ended}; personal auth tokens keep working.`,
          ]) +
          '\n',
      )
      return 0
    } finally {
      await database.close()
    }
  },
}
