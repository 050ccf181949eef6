// Native frames resolved to function, file and line with the project's uploaded symbol files
// (server/native/): frames that carry a module id (a GNU build id from an NDK notifier, or a
// Breakpad debug id from a minidump's module list) and a module-relative address. The symbol
// files' SymCaches (built at upload) are looked up by binary search; nothing is parsed per event.
// A resolved frame keeps what it came as (native.symbolicated_from); inlined code becomes frames
// of its own before the frame it was inlined into. Unmatched frames stay as they came, and the
// event names the modules whose symbols are missing.
import type { Logger } from 'pino'
import type { NativeSymbolication, StackFrame } from '../../contract/events.ts'
import type { Db } from '../db/client.ts'
import type { StoredEventPayload } from '../events/event-payload.ts'
import { breakpadDebugIdFromBuildId } from './native/native-ids.ts'
import { NativeSymbolStore, type LoadedSymbols } from './native-symbol-store.ts'

export interface NativeSymbolicatorOptions {
  database: { db: Db }
  logger: Logger
  /** SymCaches kept in this process's memory, in bytes (ERRATA_SYMBOL_CACHE_BYTES). */
  cacheBytes: number
}

/** A frame's module key: its debug id, from the minidump or converted from its build id. */
function debugIdOf(frame: StackFrame): string | null {
  const native = frame.native
  if (!native) return null
  if (native.debug_id) return native.debug_id
  const buildId = native.code_identifier?.toLowerCase()
  // A Mach-O UUID (Cocoa frames) is not a build id; dSYM uploads are not supported.
  if (!buildId || native.macho_uuid || !/^[0-9a-f]{8,}$/.test(buildId)) return null
  return breakpadDebugIdFromBuildId(buildId)
}

const addressOf = (frame: StackFrame): number | null => {
  const hex = frame.native?.lookup_address ?? frame.native?.relative_address
  if (!hex) return null
  const value = Number.parseInt(hex.slice(2), 16)
  return Number.isSafeInteger(value) ? value : null
}

/** `file` without the project root it was built under ("/home/ci/app/src/x.c" → "src/x.c"). */
export function stripProjectRoot(file: string, projectRoot: string | null): string {
  if (!projectRoot) return file
  const root = projectRoot.endsWith('/') ? projectRoot : `${projectRoot}/`
  return file.startsWith(root) ? file.slice(root.length) : file
}

function stacksOf(payload: StoredEventPayload): StackFrame[][] {
  return [...payload.exceptions.map((e) => e.stacktrace), ...(payload.threads ?? []).map((t) => t.stacktrace)]
}

export class NativeSymbolicator {
  private readonly store: NativeSymbolStore

  constructor(options: NativeSymbolicatorOptions) {
    this.store = new NativeSymbolStore(options.database.db, options.logger, options.cacheBytes)
  }

  /** Symbolicates the events' native frames in place; answers whether each event changed. */
  async symbolicate(events: ReadonlyArray<{ projectId: string; payload: StoredEventPayload }>): Promise<boolean[]> {
    const wanted = new Map<string, Set<string>>()
    for (const { projectId, payload } of events) {
      for (const stack of stacksOf(payload)) {
        for (const frame of stack) {
          const id = debugIdOf(frame)
          if (id && addressOf(frame) !== null) {
            const ids = wanted.get(projectId) ?? new Set<string>()
            ids.add(id)
            wanted.set(projectId, ids)
          }
        }
      }
    }
    if (wanted.size === 0) return events.map(() => false)
    const found = new Map<string, Map<string, LoadedSymbols>>()
    for (const [projectId, ids] of wanted) found.set(projectId, await this.store.find(projectId, ids, 'lines'))
    return events.map(({ projectId, payload }) => symbolicateEvent(payload, (debugId) => found.get(projectId)?.get(debugId) ?? null))
  }
}

function symbolicateEvent(payload: StoredEventPayload, symbolsFor: (debugId: string) => LoadedSymbols | null): boolean {
  let candidates = 0
  let resolved = 0
  const missing = new Map<string, NativeSymbolication['missing'][number]>()
  const resolve = (stack: StackFrame[]): StackFrame[] =>
    stack.flatMap((frame) => {
      const debugId = debugIdOf(frame)
      const address = addressOf(frame)
      if (!debugId || address === null || frame.native?.symbolicated_from) return [frame]
      candidates++
      const symbols = symbolsFor(debugId)
      if (!symbols) {
        if (!missing.has(debugId)) missing.set(debugId, { module: frame.native!.module, debug_id: debugId, code_id: frame.native!.code_identifier })
        return [frame]
      }
      const locations = symbols.cache.lookup(address)
      if (locations.length === 0) return [frame]
      resolved++
      const from = { method: frame.method, file: frame.file, line: frame.line }
      return locations.map((location) => {
        const file = location.file === null ? null : stripProjectRoot(location.file, symbols.projectRoot)
        return {
          ...frame,
          method: location.function ?? frame.method,
          file: file ?? frame.file,
          line: location.line,
          column: null,
          // Under the project root: the project's own code (it groups the error).
          in_project: frame.in_project || (symbols.projectRoot !== null && file !== null && file !== location.file),
          native: { ...frame.native!, symbolicated_from: from, symbol_file_id: symbols.id, ...(location.inlined && { inlined: true }) },
        }
      })
    })
  for (const exception of payload.exceptions) exception.stacktrace = resolve(exception.stacktrace)
  for (const thread of payload.threads ?? []) thread.stacktrace = resolve(thread.stacktrace)
  if (candidates === 0) return false
  payload.native_symbolication = {
    status: resolved === 0 ? 'missing' : resolved === candidates ? 'symbolicated' : 'partial',
    symbolicated_frames: resolved,
    missing: [...missing.values()],
  }
  return resolved > 0
}
