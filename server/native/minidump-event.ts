// A minidump as the notifier event the ingest pipeline takes (the shape of a Bugsnag NDK event):
// the crash (its signal or exception code, and address) with the crashing thread's walked frames,
// every thread's frames, the system, and what the crash reporter sent beside the dump (a Bugsnag
// `event` object; Crashpad/Electron annotations). Frames carry their module's ids, the address
// as found, and the module-relative address to look symbols up at (return addresses moved back
// into their call); native symbolication (server/symbolication/native.ts) resolves them.
import type { Minidump, MinidumpException } from '../symbolication/native/minidump.ts'
import type { StackFrame as WalkedFrame, ThreadStack } from '../symbolication/native/stackwalk.ts'

type Json = Record<string, unknown>

const hex = (value: bigint) => `0x${value.toString(16)}`

const SIGNALS: Record<number, string> = { 4: 'SIGILL', 5: 'SIGTRAP', 6: 'SIGABRT', 7: 'SIGBUS', 8: 'SIGFPE', 11: 'SIGSEGV', 13: 'SIGPIPE', 31: 'SIGSYS' }
const WINDOWS_CODES: Record<number, string> = {
  0xc0000005: 'EXCEPTION_ACCESS_VIOLATION',
  0xc00000fd: 'EXCEPTION_STACK_OVERFLOW',
  0x80000003: 'EXCEPTION_BREAKPOINT',
  0xc0000094: 'EXCEPTION_INT_DIVIDE_BY_ZERO',
  0xc000001d: 'EXCEPTION_ILLEGAL_INSTRUCTION',
  0xc0000409: 'STATUS_STACK_BUFFER_OVERRUN',
  0xc0000374: 'STATUS_HEAP_CORRUPTION',
  0xe06d7363: 'Unhandled C++ exception',
}
const MAC_CODES: Record<number, string> = { 1: 'EXC_BAD_ACCESS', 2: 'EXC_BAD_INSTRUCTION', 3: 'EXC_ARITHMETIC', 5: 'EXC_SOFTWARE', 6: 'EXC_BREAKPOINT', 10: 'EXC_CRASH', 0x43507378: 'Simulated crash' }

/** The crash's name as people know it: SIGSEGV, EXCEPTION_ACCESS_VIOLATION, EXC_BAD_ACCESS. */
export function crashName(os: string, exception: MinidumpException | null): string {
  if (!exception) return 'Crash'
  const code = exception.code >>> 0
  const named = os === 'windows' ? WINDOWS_CODES[code] : os === 'mac' || os === 'ios' ? MAC_CODES[code] : SIGNALS[code]
  return named ?? `Exception 0x${code.toString(16).padStart(8, '0')}`
}

const baseName = (path: string) => path.split(/[\\/]/).pop() || path

function frameJson(frame: WalkedFrame, index: number): Json {
  const module = frame.module
  return {
    type: 'c',
    method: module && frame.moduleOffset !== null ? `${baseName(module.name)} + ${hex(frame.moduleOffset)}` : hex(frame.address),
    file: module?.name ?? null,
    frameAddress: hex(frame.address),
    ...(module && { loadAddress: hex(module.base) }),
    ...(module?.codeId && /^[0-9a-f]+$/.test(module.codeId) && { codeIdentifier: module.codeId }),
    ...(module?.debugId && { debugId: module.debugId }),
    ...(frame.lookupOffset !== null && { lookupAddress: hex(frame.lookupOffset) }),
    trust: frame.trust,
    isPC: index === 0,
    inProject: false,
  }
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The event: `extra` (the `event` field's object, when sent) gives app, device, user, metaData,
 * context, release stage, breadcrumbs; the dump gives the exception, threads and system.
 * `annotations` are the crash reporter's other form fields, shown as metadata.
 */
export function minidumpEvent(dump: Minidump, threads: readonly ThreadStack[], extra: Json, annotations: Record<string, string>): Json {
  const os = dump.systemInfo?.os ?? 'unknown'
  const crashed = threads.find((t) => t.crashed) ?? threads[0]
  const name = crashName(os, dump.exception)
  const app = isObject(extra.app) ? { ...extra.app } : {}
  // Electron's crashReporter sends the app's version as `_version` (or `ver`).
  if (app.version === undefined && (annotations._version ?? annotations.ver)) app.version = annotations._version ?? annotations.ver
  const device = {
    ...(isObject(extra.device) ? extra.device : {}),
    osName: os,
    ...(dump.systemInfo?.osVersion && { osVersion: dump.systemInfo.osVersion }),
    cpuAbi: [dump.arch],
  }
  const metaData = {
    ...(isObject(extra.metaData) ? extra.metaData : {}),
    ...(Object.keys(annotations).length > 0 && { 'Crash reporter': annotations }),
    Minidump: {
      modules: dump.modules.length,
      threads: dump.threads.length,
      ...(dump.exception && { 'exception code': `0x${(dump.exception.code >>> 0).toString(16)}`, 'crash address': hex(dump.exception.address) }),
    },
  }
  return {
    ...extra,
    exceptions: [
      {
        errorClass: name,
        message: dump.exception ? `${name} at ${hex(dump.exception.address)}` : 'The process crashed (the minidump has no exception record)',
        type: 'c',
        stacktrace: (crashed?.frames ?? []).map(frameJson),
      },
    ],
    threads: threads.map((thread) => ({
      id: String(thread.threadId),
      name: thread.crashed ? 'crashed thread' : `thread ${thread.threadId}`,
      type: 'c',
      errorReportingThread: thread.crashed,
      stacktrace: thread.frames.map(frameJson),
    })),
    severity: 'error',
    unhandled: true,
    severityReason: { type: os === 'windows' ? 'unhandledException' : 'signal', ...(os !== 'windows' && { attributes: { signalType: name } }) },
    app,
    device,
    metaData,
  }
}
