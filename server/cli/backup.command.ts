import { createWriteStream, existsSync, renameSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { dirname, join, resolve } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { BackupError, describeManifest, readBackupManifest, restoreBackup, writeBackup } from '../backup/backup.ts'
import { loadConfig, type Config } from '../config.ts'
import { openPglite } from '../db/client.ts'
import { operatorSocketPath } from '../db/data-dir-layout.ts'
import { DataDirInUseError } from '../db/data-dir-lock.ts'
import { CommandError, type Command } from './command.ts'

const POSTGRES_TOOLS = 'DATABASE_URL is set: back up and restore PostgreSQL with pg_dump and pg_restore (docs/operations.md, "Backups and restore")'

/** The embedded database's configuration, for backup and restore. */
function embeddedConfig(): Config {
  const config = loadConfig()
  if (config.databaseUrl) throw new CommandError(POSTGRES_TOOLS)
  // Like the server: whatever is written (the backup, a restored DATA_DIR) is its user's only.
  process.umask(0o077)
  return config
}

/** Asks the server running on `dataDir` (pid `pid`) for a backup, written to `file`. */
async function backupFromServer(dataDir: string, pid: number, file: string): Promise<void> {
  const socketPath = operatorSocketPath(dataDir)
  const response = await new Promise<import('node:http').IncomingMessage>((resolveResponse, reject) => {
    const req = request({ socketPath, method: 'POST', path: '/backup' }, resolveResponse)
    req.on('error', (err: NodeJS.ErrnoException) => {
      reject(
        err.code === 'ENOENT' || err.code === 'ECONNREFUSED'
          ? new CommandError(`Errata is running on DATA_DIR ${dataDir} (pid ${pid}) but does not answer on ${socketPath} (see its log): stop it, then run this again`)
          : err,
      )
    })
    req.end()
  })
  if (response.statusCode !== 200) {
    let body = ''
    for await (const chunk of response) body += String(chunk)
    let message = body
    try {
      message = (JSON.parse(body) as { errors: string[] }).errors.join('; ')
    } catch {
      // not the socket's JSON: said as it came
    }
    throw new CommandError(`the running server made no backup: ${message}`)
  }
  try {
    await pipeline(response, createWriteStream(file, { mode: 0o600 }))
  } catch (err) {
    throw new CommandError(`the running server stopped sending the backup (${(err as Error).message}): see its log`)
  }
}

export const backupCommand: Command = {
  usage: 'backup FILE [--force]',
  summary: 'writes a backup of the embedded database, Errata running or not',
  async run(args) {
    const force = args.includes('--force')
    const files = args.filter((arg) => arg !== '--force')
    if (files.length !== 1 || files[0]!.startsWith('-')) throw new CommandError('give one file to write: npm run errata -- backup FILE [--force]')
    const config = embeddedConfig()
    const file = resolve(files[0]!)
    if (existsSync(file) && !force) throw new CommandError(`${file} exists: give another name, or add --force to replace it`)
    if (!existsSync(dirname(file))) throw new CommandError(`the directory ${dirname(file)} does not exist`)
    if (!existsSync(join(config.dataDir, 'PG_VERSION'))) {
      throw new CommandError(`DATA_DIR ${config.dataDir} holds no Errata database; set DATA_DIR as for the server`)
    }
    // Written beside, and renamed into place once read back whole.
    const partial = `${file}.tmp`
    try {
      let running = false
      try {
        const database = await openPglite(config.dataDir, 'warn')
        try {
          await writeBackup(database, config.dataDir, createWriteStream(partial, { mode: 0o600 }))
        } finally {
          await database.close()
        }
      } catch (err) {
        if (!(err instanceof DataDirInUseError)) throw err
        running = true
        await backupFromServer(config.dataDir, err.pid, partial)
      }
      const manifest = await readBackupManifest(partial)
      if (existsSync(file) && !force) throw new CommandError(`${file} appeared meanwhile: give another name, or add --force to replace it`)
      renameSync(partial, file)
      process.stdout.write(`Backup written to ${file} (${describeManifest(manifest)}${running ? ', while Errata ran' : ''}).\n`)
      return 0
    } catch (err) {
      rmSync(partial, { force: true })
      if (err instanceof BackupError) throw new CommandError(err.message)
      throw err
    }
  },
}

export const restoreCommand: Command = {
  usage: 'restore FILE',
  summary: 'restores a backup into an empty DATA_DIR (Errata stopped)',
  async run(args) {
    if (args.length !== 1 || args[0]!.startsWith('-')) throw new CommandError('give the backup to restore: npm run errata -- restore FILE')
    const config = embeddedConfig()
    const file = resolve(args[0]!)
    if (!existsSync(file)) throw new CommandError(`${file} does not exist`)
    try {
      const manifest = await restoreBackup(file, config.dataDir)
      process.stdout.write(
        `Restored ${file} (${describeManifest(manifest)}) into DATA_DIR ${resolve(config.dataDir)}.\n` +
          'Start Errata on it: migrations newer than the backup apply at start.\n',
      )
      return 0
    } catch (err) {
      if (err instanceof BackupError) throw new CommandError(err.message)
      throw err
    }
  },
}
