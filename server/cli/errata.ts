// `npm run errata -- <command>`: the operator's tasks that run beside the server, not in it.
// Each command reads the same configuration as the server (server/config.ts, the environment).
import { ConfigError } from '../config.ts'
import { DataDirOwnerError } from '../db/data-dir-permissions.ts'
import { CommandError, type Command } from './command.ts'
import { backupCommand, restoreCommand } from './backup.command.ts'
import { resetPasswordCommand } from './reset-password.command.ts'

const commands: Record<string, Command> = {
  'reset-password': resetPasswordCommand,
  backup: backupCommand,
  restore: restoreCommand,
  help: { usage: 'help', summary: 'lists these commands', run: async () => (process.stdout.write(helpText()), 0) },
}

function helpText(): string {
  const rows = Object.values(commands).map((command) => `  ${command.usage.padEnd(28)} ${command.summary}`)
  return `Usage: npm run errata -- <command>\n\nCommands:\n${rows.join('\n')}\n\nSettings come from the environment, as for the server (README.md, Configuration).\n`
}

async function main(argv: readonly string[]): Promise<number> {
  const [name, ...args] = argv
  if (name === undefined || name === '--help' || name === '-h') return commands.help!.run([])
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined
  if (!command) {
    process.stderr.write(`Unknown command "${name}".\n\n${helpText()}`)
    return 2
  }
  try {
    return await command.run(args)
  } catch (err) {
    const known = err instanceof CommandError || err instanceof ConfigError || err instanceof DataDirOwnerError
    process.stderr.write(`errata ${name}: ${known ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    return 1
  }
}

// Whatever a command left open (a pool's idle timer), the process ends with its status.
main(process.argv.slice(2)).then((code) => process.exit(code))
