// A minidump reader: the header, the stream directory, and the streams a stack walk needs
// (system info, modules with their debug ids, threads, the exception, memory). The layouts are
// Microsoft's (minidumpapiset.h) with Breakpad's extensions, as rust-minidump's
// minidump-common/src/format.rs spells them. Minidumps are uploaded, so every offset, size and
// count is checked against the buffer: a malformed dump throws a MinidumpError naming what is
// wrong, and a hostile count never sizes an allocation.

import type { NativeArch } from './native-symbols.ts'
import { breakpadDebugIdFromBuildId } from './native-ids.ts'

export class MinidumpError extends Error {
  override name = 'MinidumpError'
}

/** Registers by the names Breakpad's STACK CFI records use (rsp, rip, x29, sp, pc, r11, …). */
export type Registers = Record<string, bigint>

/** A thread's CPU state at the time of the dump. */
export interface CpuContext {
  arch: NativeArch
  /** The context's flags as written (the CPU type bits and which register groups are valid). */
  flags: number
  pc: bigint
  sp: bigint
  /** rbp, ebp, x29; on arm r7 (Thumb or Apple) or r11. */
  fp: bigint
  /** x30 / r14 on arm and arm64; null on x86 and x86_64. */
  lr: bigint | null
  /** arm: the CPSR's Thumb bit. */
  thumb: boolean
  /** Every integer register the context holds, by its CFI name. */
  registers: Registers
}

export interface MinidumpSystemInfo {
  arch: NativeArch
  /** The raw PROCESSOR_ARCHITECTURE value (0x8003: Breakpad's old arm64). */
  processorArchitecture: number
  /** 'windows', 'linux', 'android', 'mac', 'ios', 'solaris', 'unix', 'nacl', 'ps3', or 'unknown'. */
  os: string
  platformId: number
  /** "10.0.19045" plus the CSD string ("Service Pack 2", a Linux kernel's build line) when present. */
  osVersion: string
  cpuCount: number
}

export interface MinidumpModule {
  /** The code file as the dump names it ("/system/lib64/libc.so", "C:\\Windows\\System32\\ntdll.dll"). */
  name: string
  base: bigint
  size: number
  /** Breakpad debug id (33 upper-case hex characters), from the CodeView record; null without one. */
  debugId: string | null
  /** ELF build id (lower-case hex) or the PE code id (timestamp + size); null when unknown. */
  codeId: string | null
  /** The PDB name from an RSDS record, the code file for ELF; null otherwise. */
  debugFile: string | null
}

export interface MemoryRegion {
  base: bigint
  /** A view into the dump's buffer. */
  bytes: Buffer
}

export interface MinidumpThread {
  id: number
  /** The thread's stack as captured (from sp up), or null when the dump left it out. */
  stack: MemoryRegion | null
  /** Null only for CPUs whose contexts are not decoded (mips, ppc, …); a malformed context throws. */
  context: CpuContext | null
}

export interface MinidumpException {
  threadId: number
  code: number
  flags: number
  /** ExceptionAddress as written: Windows puts the faulting instruction there, Breakpad on Linux the fault address (si_addr). */
  address: bigint
  /** The CPU state at the fault, which the crashing thread's walk starts from. */
  context: CpuContext | null
}

export interface MinidumpStreamEntry {
  type: number
  size: number
  rva: number
}

export interface Minidump {
  version: number
  timestamp: number
  streams: MinidumpStreamEntry[]
  systemInfo: MinidumpSystemInfo | null
  /** From the system info, else from the first context's flags. */
  arch: NativeArch
  modules: MinidumpModule[]
  threads: MinidumpThread[]
  exception: MinidumpException | null
  /** Every captured memory range: the memory list, the 64-bit memory list and the threads' stacks. */
  memory: MemoryRegion[]
}

export const STREAM = {
  threadList: 3,
  moduleList: 4,
  memoryList: 5,
  exception: 6,
  systemInfo: 7,
  memory64List: 9,
} as const

const SIGNATURE = 0x504d444d
const VERSION = 0xa793
const HEADER_SIZE = 32
const DIRECTORY_ENTRY_SIZE = 12
const MODULE_SIZE = 108
const THREAD_SIZE = 48
const MEMORY_DESCRIPTOR_SIZE = 16
const MEMORY64_DESCRIPTOR_SIZE = 16
const EXCEPTION_STREAM_SIZE = 168
const SYSTEM_INFO_SIZE = 56

// CodeView signatures (format.rs CvSignature).
const CV_RSDS = 0x53445352
const CV_ELF = 0x4270454c

// Context CPU type bits (format.rs ContextFlagsCpu) and sizes of the layouts.
const CONTEXT_CPU_MASK = 0xffffff00
const CONTEXT_X86 = 0x10000
const CONTEXT_AMD64 = 0x100000
const CONTEXT_ARM = 0x40000000
const CONTEXT_ARM64 = 0x400000
const CONTEXT_ARM64_OLD = 0x80000000
export const CONTEXT_SIZE = { x86: 716, amd64: 1232, arm: 368, arm64: 912, arm64Old: 796 } as const

const ARCH_BY_PROCESSOR: Record<number, NativeArch> = {
  0: 'x86',
  1: 'mips',
  3: 'ppc',
  5: 'arm',
  9: 'x86_64',
  10: 'x86',
  12: 'arm64',
  0x8002: 'ppc64',
  0x8003: 'arm64',
  0x8004: 'mips64',
}

const OS_BY_PLATFORM: Record<number, string> = {
  1: 'windows',
  2: 'windows',
  3: 'windows',
  4: 'windows',
  0x8000: 'unix',
  0x8101: 'mac',
  0x8102: 'ios',
  0x8201: 'linux',
  0x8202: 'solaris',
  0x8203: 'android',
  0x8204: 'ps3',
  0x8205: 'nacl',
}

const hex = (value: number | bigint) => `0x${value.toString(16)}`

/** Bounds-checked little-endian reads over the whole dump. */
class Reader {
  constructor(readonly buf: Buffer) {}

  check(offset: number, size: number, what: string): void {
    if (!Number.isSafeInteger(offset) || offset < 0 || size < 0 || offset + size > this.buf.length) {
      throw new MinidumpError(`minidump: truncated: ${what} at ${hex(offset)} (${size} bytes) is past the end of the ${this.buf.length}-byte file`)
    }
  }
  u8(offset: number, what: string): number {
    this.check(offset, 1, what)
    return this.buf[offset]!
  }
  u16(offset: number, what: string): number {
    this.check(offset, 2, what)
    return this.buf.readUInt16LE(offset)
  }
  u32(offset: number, what: string): number {
    this.check(offset, 4, what)
    return this.buf.readUInt32LE(offset)
  }
  u64(offset: number, what: string): bigint {
    this.check(offset, 8, what)
    return this.buf.readBigUInt64LE(offset)
  }
  slice(offset: number, size: number, what: string): Buffer {
    this.check(offset, size, what)
    return this.buf.subarray(offset, offset + size)
  }
  /** A MINIDUMP_STRING: a u32 byte length and UTF-16LE text. */
  string(rva: number, what: string): string {
    const length = this.u32(rva, `${what}'s length`)
    if (length % 2 !== 0) throw new MinidumpError(`minidump: ${what} has an odd UTF-16 byte length (${length})`)
    return this.slice(rva + 4, length, what).toString('utf16le')
  }
}

/** Reads a minidump. Throws MinidumpError for anything malformed or truncated. */
export function parseMinidump(buf: Buffer): Minidump {
  const reader = new Reader(buf)
  if (buf.length < HEADER_SIZE) throw new MinidumpError(`minidump: truncated: the header needs ${HEADER_SIZE} bytes, the file has ${buf.length}`)
  const signature = reader.u32(0, 'the signature')
  if (signature !== SIGNATURE) {
    throw new MinidumpError(`minidump: not a minidump (signature ${hex(signature)}, expected 0x504d444d "MDMP")`)
  }
  const version = reader.u32(4, 'the version')
  if ((version & 0xffff) !== VERSION) throw new MinidumpError(`minidump: unknown format version ${hex(version & 0xffff)} (expected 0xa793)`)
  const streamCount = reader.u32(8, 'the stream count')
  const directoryRva = reader.u32(12, 'the stream directory offset')
  const timestamp = reader.u32(20, 'the timestamp')

  const directoryRoom = Math.max(0, Math.floor((buf.length - directoryRva) / DIRECTORY_ENTRY_SIZE))
  if (directoryRva > buf.length || streamCount > directoryRoom) {
    throw new MinidumpError(`minidump: truncated: the header claims ${streamCount} streams at ${hex(directoryRva)}, the file holds ${directoryRoom}`)
  }
  const streams: MinidumpStreamEntry[] = []
  for (let i = 0; i < streamCount; i++) {
    const at = directoryRva + i * DIRECTORY_ENTRY_SIZE
    const entry = { type: reader.u32(at, 'a stream directory entry'), size: reader.u32(at + 4, 'a stream size'), rva: reader.u32(at + 8, 'a stream offset') }
    if (entry.type === 0) continue // UnusedStream
    reader.check(entry.rva, entry.size, `stream ${entry.type}`)
    streams.push(entry)
  }
  const stream = (type: number) => {
    const entry = streams.find((s) => s.type === type)
    return entry ? reader.slice(entry.rva, entry.size, `stream ${type}`) : null
  }

  const systemInfoBytes = stream(STREAM.systemInfo)
  const systemInfo = systemInfoBytes ? readSystemInfo(reader, systemInfoBytes) : null
  const os = systemInfo?.os ?? 'unknown'

  const moduleBytes = stream(STREAM.moduleList)
  const modules = moduleBytes ? readModules(reader, moduleBytes, os) : []

  // Contexts are read once the architecture is known: from the system info, else from the flags.
  const threadBytes = stream(STREAM.threadList)
  const exceptionBytes = stream(STREAM.exception)
  const rawThreads = threadBytes ? readThreadList(reader, threadBytes) : []
  const rawException = exceptionBytes ? readException(exceptionBytes) : null
  const firstContext = rawException?.context ?? rawThreads[0]?.context
  const arch = systemInfo?.arch ?? (firstContext && firstContext.size >= 4 ? archOfContextFlags(reader, firstContext.rva) : 'unknown')
  const processor = systemInfo?.processorArchitecture ?? null

  const threads: MinidumpThread[] = rawThreads.map((thread) => ({
    id: thread.id,
    stack: thread.stack,
    context: readContext(reader, thread.context, arch, processor, os, `thread ${thread.id}'s context`),
  }))
  const exception: MinidumpException | null = rawException && {
    threadId: rawException.threadId,
    code: rawException.code,
    flags: rawException.flags,
    address: rawException.address,
    context: rawException.context.size === 0 ? null : readContext(reader, rawException.context, arch, processor, os, "the exception's context"),
  }

  const memory: MemoryRegion[] = []
  const memoryBytes = stream(STREAM.memoryList)
  if (memoryBytes) memory.push(...readMemoryList(reader, memoryBytes))
  const memory64Bytes = stream(STREAM.memory64List)
  if (memory64Bytes) memory.push(...readMemory64List(reader, memory64Bytes))
  for (const thread of threads) if (thread.stack) memory.push(thread.stack)
  memory.sort((a, b) => (a.base < b.base ? -1 : a.base > b.base ? 1 : 0))

  return { version, timestamp, streams, systemInfo, arch, modules, threads, exception, memory }
}

/**
 * A list stream: a u32 count, maybe 4 bytes of padding (8-byte alignment), then fixed-size
 * entries. The count is checked against the stream's size before anything is read.
 */
function listEntries(stream: Buffer, entrySize: number, what: string, plural: string): { count: number; start: number } {
  if (stream.length < 4) throw new MinidumpError(`minidump: truncated: the ${what} stream has ${stream.length} bytes, too few for its count`)
  const count = stream.readUInt32LE(0)
  const fits = Math.floor((stream.length - 4) / entrySize)
  if (count > fits) throw new MinidumpError(`minidump: truncated: the ${what} claims ${count} ${plural}, the stream holds ${fits}`)
  // Exactly four bytes to spare: the padding some writers put after the count (rust-minidump's rule).
  return { count, start: stream.length - 4 - count * entrySize === 4 ? 8 : 4 }
}

function readSystemInfo(reader: Reader, stream: Buffer): MinidumpSystemInfo {
  if (stream.length < SYSTEM_INFO_SIZE) {
    throw new MinidumpError(`minidump: truncated: the system info stream has ${stream.length} bytes, it needs ${SYSTEM_INFO_SIZE}`)
  }
  const processorArchitecture = stream.readUInt16LE(0)
  const platformId = stream.readUInt32LE(20)
  const csdRva = stream.readUInt32LE(24)
  // The CSD string (service pack, or a Linux kernel's version line) is optional: a bad one is dropped.
  let csd = ''
  if (csdRva !== 0) {
    try {
      csd = reader.string(csdRva, 'the OS version string').replace(/\0+$/, '')
    } catch (error) {
      if (!(error instanceof MinidumpError)) throw error
    }
  }
  const version = `${stream.readUInt32LE(8)}.${stream.readUInt32LE(12)}.${stream.readUInt32LE(16)}`
  return {
    arch: ARCH_BY_PROCESSOR[processorArchitecture] ?? 'unknown',
    processorArchitecture,
    os: OS_BY_PLATFORM[platformId] ?? 'unknown',
    platformId,
    osVersion: csd ? `${version} ${csd}` : version,
    cpuCount: stream.readUInt8(6),
  }
}

function readModules(reader: Reader, stream: Buffer, os: string): MinidumpModule[] {
  const { count, start } = listEntries(stream, MODULE_SIZE, 'module list', 'modules')
  const modules: MinidumpModule[] = []
  for (let i = 0; i < count; i++) {
    const at = start + i * MODULE_SIZE
    const base = stream.readBigUInt64LE(at)
    const size = stream.readUInt32LE(at + 8)
    const timestamp = stream.readUInt32LE(at + 16)
    const name = reader.string(stream.readUInt32LE(at + 20), `module ${i}'s name`)
    const cvSize = stream.readUInt32LE(at + 76)
    const cvRva = stream.readUInt32LE(at + 80)
    const cv = cvSize === 0 ? null : reader.slice(cvRva, cvSize, `module ${i} (${name})'s CodeView record`)
    modules.push({ name, base, size, ...identify(cv, name, os, timestamp, size) })
  }
  return modules
}

function identify(cv: Buffer | null, name: string, os: string, timestamp: number, size: number): Pick<MinidumpModule, 'debugId' | 'codeId' | 'debugFile'> {
  const peCodeId = `${timestamp.toString(16).toUpperCase().padStart(8, '0')}${size.toString(16)}`
  const signature = cv && cv.length >= 4 ? cv.readUInt32LE(0) : null
  if (cv && signature === CV_RSDS && cv.length >= 24) {
    const guid = cv.subarray(4, 20)
    const age = cv.readUInt32LE(20)
    const nameEnd = cv.indexOf(0, 24)
    const debugFile = cv.subarray(24, nameEnd < 0 ? cv.length : nameEnd).toString('utf8') || null
    const guidHex = guidToBreakpad(guid)
    const nil = guid.every((byte) => byte === 0)
    // Apple's writers put the Mach-O UUID in an RSDS record; Linux's old ones a GUID from the build id.
    const codeId = os === 'windows' ? peCodeId : os === 'mac' || os === 'ios' ? guidHex : null
    return { debugId: nil ? null : `${guidHex}${age.toString(16).toUpperCase()}`, codeId, debugFile }
  }
  if (cv && signature === CV_ELF) {
    const buildId = cv.subarray(4)
    if (buildId.every((byte) => byte === 0)) return { debugId: null, codeId: null, debugFile: name }
    const buildIdHex = buildId.toString('hex')
    return { debugId: breakpadDebugIdFromBuildId(buildIdHex), codeId: buildIdHex, debugFile: name }
  }
  return { debugId: null, codeId: os === 'windows' && !cv ? peCodeId : null, debugFile: null }
}

/** A 16-byte little-endian GUID as Breakpad prints it: the first three fields byte-swapped, upper-case. */
function guidToBreakpad(guid: Buffer): string {
  const data1 = guid.readUInt32LE(0).toString(16).padStart(8, '0')
  const data2 = guid.readUInt16LE(4).toString(16).padStart(4, '0')
  const data3 = guid.readUInt16LE(6).toString(16).padStart(4, '0')
  return `${data1}${data2}${data3}${guid.subarray(8, 16).toString('hex')}`.toUpperCase()
}

interface Location {
  size: number
  rva: number
}

interface RawThread {
  id: number
  stack: MemoryRegion | null
  context: Location
}

function readThreadList(reader: Reader, stream: Buffer): RawThread[] {
  const { count, start } = listEntries(stream, THREAD_SIZE, 'thread list', 'threads')
  const threads: RawThread[] = []
  for (let i = 0; i < count; i++) {
    const at = start + i * THREAD_SIZE
    const id = stream.readUInt32LE(at)
    const stackBase = stream.readBigUInt64LE(at + 24)
    const stackSize = stream.readUInt32LE(at + 32)
    const stackRva = stream.readUInt32LE(at + 36)
    const stack = stackSize === 0 ? null : { base: stackBase, bytes: reader.slice(stackRva, stackSize, `thread ${id}'s stack memory`) }
    threads.push({ id, stack, context: { size: stream.readUInt32LE(at + 40), rva: stream.readUInt32LE(at + 44) } })
  }
  return threads
}

function readException(stream: Buffer): { threadId: number; code: number; flags: number; address: bigint; context: Location } {
  if (stream.length < EXCEPTION_STREAM_SIZE) {
    throw new MinidumpError(`minidump: truncated: the exception stream has ${stream.length} bytes, it needs ${EXCEPTION_STREAM_SIZE}`)
  }
  return {
    threadId: stream.readUInt32LE(0),
    code: stream.readUInt32LE(8),
    flags: stream.readUInt32LE(12),
    address: stream.readBigUInt64LE(24),
    context: { size: stream.readUInt32LE(160), rva: stream.readUInt32LE(164) },
  }
}

function readMemoryList(reader: Reader, stream: Buffer): MemoryRegion[] {
  const { count, start } = listEntries(stream, MEMORY_DESCRIPTOR_SIZE, 'memory list', 'ranges')
  const regions: MemoryRegion[] = []
  for (let i = 0; i < count; i++) {
    const at = start + i * MEMORY_DESCRIPTOR_SIZE
    const base = stream.readBigUInt64LE(at)
    const size = stream.readUInt32LE(at + 8)
    const rva = stream.readUInt32LE(at + 12)
    regions.push({ base, bytes: reader.slice(rva, size, `memory range ${i} (${hex(base)})`) })
  }
  return regions
}

/** MINIDUMP_MEMORY64_LIST: a u64 count, the u64 offset of all the data, then (start, size) pairs laid end to end. */
function readMemory64List(reader: Reader, stream: Buffer): MemoryRegion[] {
  if (stream.length < 16) throw new MinidumpError(`minidump: truncated: the 64-bit memory list stream has ${stream.length} bytes, too few for its header`)
  const count = stream.readBigUInt64LE(0)
  const fits = Math.floor((stream.length - 16) / MEMORY64_DESCRIPTOR_SIZE)
  if (count > BigInt(fits)) throw new MinidumpError(`minidump: truncated: the 64-bit memory list claims ${count} ranges, the stream holds ${fits}`)
  let rva = stream.readBigUInt64LE(8)
  const regions: MemoryRegion[] = []
  for (let i = 0; i < Number(count); i++) {
    const at = 16 + i * MEMORY64_DESCRIPTOR_SIZE
    const base = stream.readBigUInt64LE(at)
    const size = stream.readBigUInt64LE(at + 8)
    if (rva + size > BigInt(reader.buf.length)) {
      throw new MinidumpError(`minidump: truncated: 64-bit memory range ${i} (${hex(base)}, ${size} bytes at ${hex(rva)}) is past the end of the ${reader.buf.length}-byte file`)
    }
    regions.push({ base, bytes: reader.slice(Number(rva), Number(size), `64-bit memory range ${i}`) })
    rva += size
  }
  return regions
}

function archOfContextFlags(reader: Reader, rva: number): NativeArch {
  const cpu = (reader.u32(rva, 'a context') & CONTEXT_CPU_MASK) >>> 0
  if (cpu === CONTEXT_X86) return 'x86'
  if (cpu === CONTEXT_AMD64) return 'x86_64'
  if (cpu === CONTEXT_ARM) return 'arm'
  if (cpu === CONTEXT_ARM64 || cpu === CONTEXT_ARM64_OLD) return 'arm64'
  // x86_64 contexts start with six u64 home slots: their flags are at 48.
  if (reader.buf.length >= rva + 52 && ((reader.u32(rva + 48, 'a context') & CONTEXT_CPU_MASK) >>> 0) === CONTEXT_AMD64) return 'x86_64'
  return 'unknown'
}

/** The context at `location`, or null for a CPU whose contexts this reader does not decode (mips, ppc, …). */
function readContext(reader: Reader, location: Location, arch: NativeArch, processor: number | null, os: string, what: string): CpuContext | null {
  const bytes = reader.slice(location.rva, location.size, what)
  const need = (size: number, layout: string) => {
    if (bytes.length < size) throw new MinidumpError(`minidump: ${what} has ${bytes.length} bytes, too small for an ${layout} context (${size})`)
  }
  const expectCpu = (flags: number, cpu: number, layout: string) => {
    if (((flags & CONTEXT_CPU_MASK) >>> 0) !== cpu) throw new MinidumpError(`minidump: ${what} has flags ${hex(flags >>> 0)}, not an ${layout} context's`)
  }
  const registers: Registers = {}
  switch (arch) {
    case 'x86': {
      need(CONTEXT_SIZE.x86, 'x86')
      const flags = bytes.readUInt32LE(0)
      expectCpu(flags, CONTEXT_X86, 'x86')
      const names = ['edi', 'esi', 'ebx', 'edx', 'ecx', 'eax', 'ebp', 'eip'] as const
      names.forEach((name, i) => (registers[name] = BigInt(bytes.readUInt32LE(156 + i * 4))))
      registers.esp = BigInt(bytes.readUInt32LE(196))
      return { arch, flags, pc: registers.eip!, sp: registers.esp, fp: registers.ebp!, lr: null, thumb: false, registers }
    }
    case 'x86_64': {
      need(CONTEXT_SIZE.amd64, 'x86_64')
      const flags = bytes.readUInt32LE(48)
      expectCpu(flags, CONTEXT_AMD64, 'x86_64')
      const names = ['rax', 'rcx', 'rdx', 'rbx', 'rsp', 'rbp', 'rsi', 'rdi', 'r8', 'r9', 'r10', 'r11', 'r12', 'r13', 'r14', 'r15', 'rip'] as const
      names.forEach((name, i) => (registers[name] = bytes.readBigUInt64LE(120 + i * 8)))
      return { arch, flags, pc: registers.rip!, sp: registers.rsp!, fp: registers.rbp!, lr: null, thumb: false, registers }
    }
    case 'arm': {
      need(CONTEXT_SIZE.arm, 'arm')
      const flags = bytes.readUInt32LE(0)
      expectCpu(flags, CONTEXT_ARM, 'arm')
      for (let i = 0; i < 16; i++) registers[ARM_NAMES[i]!] = BigInt(bytes.readUInt32LE(4 + i * 4))
      const cpsr = bytes.readUInt32LE(68)
      const thumb = (cpsr & 0x20) !== 0
      const fp = os === 'ios' || os === 'mac' || thumb ? registers.r7! : registers.r11!
      return { arch, flags, pc: registers.pc!, sp: registers.sp!, fp, lr: registers.lr!, thumb, registers }
    }
    case 'arm64': {
      // Breakpad's old layout (a u64 flags word, 0x80000000) or Microsoft's (u32 flags, 0x400000):
      // the CPU bits tell them apart, whichever PROCESSOR_ARCHITECTURE (12 or 0x8003) the dump says.
      need(4, 'arm64')
      const flags = bytes.readUInt32LE(0)
      const cpu = (flags & CONTEXT_CPU_MASK) >>> 0
      const old = cpu === CONTEXT_ARM64_OLD || (cpu !== CONTEXT_ARM64 && processor === 0x8003)
      if (old) {
        need(CONTEXT_SIZE.arm64Old, 'arm64 (Breakpad layout)')
        expectCpu(flags, CONTEXT_ARM64_OLD, 'arm64 (Breakpad layout)')
      } else {
        need(CONTEXT_SIZE.arm64, 'arm64')
        expectCpu(flags, CONTEXT_ARM64, 'arm64')
      }
      // Both put x0–x30, sp and pc at 8 (after a u64 flags word, or u32 flags and cpsr).
      for (let i = 0; i < 31; i++) registers[`x${i}`] = bytes.readBigUInt64LE(8 + i * 8)
      registers.sp = bytes.readBigUInt64LE(8 + 31 * 8)
      registers.pc = bytes.readBigUInt64LE(8 + 32 * 8)
      return { arch, flags, pc: registers.pc, sp: registers.sp, fp: registers.x29!, lr: registers.x30!, thumb: false, registers }
    }
    default:
      return null
  }
}

const ARM_NAMES = ['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8', 'r9', 'r10', 'r11', 'r12', 'sp', 'lr', 'pc']

/** The module whose [base, base + size) holds `address`, or null. */
export function moduleAt(dump: Minidump, address: bigint): MinidumpModule | null {
  for (const module of dump.modules) {
    if (address >= module.base && address < module.base + BigInt(module.size)) return module
  }
  return null
}
