/** One operator task of `npm run errata -- <command>` (server/cli/errata.ts). */
export interface Command {
  /** How it is called, after `npm run errata --`. */
  usage: string
  summary: string
  /** Resolves to the exit status. */
  run(args: readonly string[]): Promise<number>
}

/** A mistake of the operator's (a missing argument, Errata still running): said in one line, exit status 1. */
export class CommandError extends Error {}
