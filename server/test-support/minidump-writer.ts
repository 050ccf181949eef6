// Synthesized minidumps for tests: valid dumps of x86, x86_64, arm and arm64 crashes with the
// streams Errata reads (system info, modules with BpEL or RSDS CodeView records, threads with
// stack memory, an exception with its context, a memory list). Layouts as in rust-minidump's
// minidump-common/src/format.rs.
//
//   const { stack, sp, fp } = framePointerStack('arm64', { base: 0x7ff000n, returnAddresses: [0x10001234n, 0x10005678n] })
//   const dump = writeMinidump({
//     arch: 'arm64', os: 'android',
//     modules: [{ name: 'libapp.so', base: 0x10000000n, size: 0x10000, buildId: 'b060ad20c6b47781552708aa192e7739fac7c84a' }],
//     crashingThread: { id: 1, pc: 0x10000100n, sp, fp, lr: 0x10001234n, stack },
//   })

export type WriterArch = 'x86' | 'x86_64' | 'arm' | 'arm64'
export type WriterOs = 'windows' | 'linux' | 'android' | 'mac' | 'ios'
type Address = bigint | number

export interface WriterModule {
  name: string
  base: Address
  size: number
  /** An ELF build id (hex): written as a Breakpad BpEL CodeView record. */
  buildId?: string
  /** A PDB 7.0 (RSDS) record: the GUID as Breakpad prints it (32 hex digits), the age, the PDB's name. */
  pdb?: { guid: string; age: number; file: string }
  /** A raw CodeView record, written as given (for odd signatures). */
  codeView?: Buffer
  timestamp?: number
}

export interface WriterThread {
  id: number
  pc: Address
  sp: Address
  /** rbp, ebp, x29; on arm r11, or r7 when `thumb` (or on Apple systems). */
  fp: Address
  /** arm and arm64 only. */
  lr?: Address
  /** Other registers by name (rbx, x19, r4, …). */
  registers?: Record<string, Address>
  /** arm: the CPSR's Thumb bit. */
  thumb?: boolean
  stack?: { base: Address; bytes: Buffer }
}

export interface MinidumpSpec {
  arch: WriterArch
  os: WriterOs
  osVersion?: { major: number; minor: number; build: number; csd?: string }
  /** arm64 only: Microsoft's CONTEXT_ARM64 (Crashpad, Windows) or Breakpad's old layout (the default, Linux Breakpad). */
  arm64Layout?: 'microsoft' | 'breakpad'
  modules: WriterModule[]
  /** The thread the exception stream names; listed first in the thread list. */
  crashingThread: WriterThread
  threads?: WriterThread[]
  /** Defaults: SIGSEGV-like code 0xc0000005 at address 0. Null: no exception stream. */
  exception?: { code?: number; flags?: number; address?: Address } | null
  /** Extra captured memory (heap), written to the memory list beside the stacks. */
  memory?: Array<{ base: Address; bytes: Buffer }>
}

const PROCESSOR: Record<WriterArch, number> = { x86: 0, x86_64: 9, arm: 5, arm64: 12 }
const PLATFORM: Record<WriterOs, number> = { windows: 3, linux: 0x8201, android: 0x8203, mac: 0x8101, ios: 0x8102 }

export function pointerWidth(arch: WriterArch): 4 | 8 {
  return arch === 'x86' || arch === 'arm' ? 4 : 8
}

/**
 * A stack holding a frame-pointer chain: the first frame record sits `frameSize` bytes above sp,
 * each record is [caller's fp, return address] (the layout every architecture here uses with
 * frame pointers), and the last record's saved fp is 0, which ends the chain.
 */
export function framePointerStack(
  arch: WriterArch,
  options: { base: Address; returnAddresses: Address[]; frameSize?: number; size?: number },
): { stack: { base: bigint; bytes: Buffer }; sp: bigint; fp: bigint; records: bigint[] } {
  const width = pointerWidth(arch)
  const base = BigInt(options.base)
  const frameSize = options.frameSize ?? 64
  const size = options.size ?? frameSize * (options.returnAddresses.length + 2)
  const bytes = Buffer.alloc(size)
  const records = options.returnAddresses.map((_, i) => base + BigInt(frameSize * (i + 1)))
  options.returnAddresses.forEach((returnAddress, i) => {
    const at = Number(records[i]! - base)
    writePointer(bytes, at, records[i + 1] ?? 0n, width)
    writePointer(bytes, at + width, BigInt(returnAddress), width)
  })
  return { stack: { base, bytes }, sp: base, fp: records[0] ?? 0n, records }
}

export function writePointer(bytes: Buffer, offset: number, value: Address, width: 4 | 8): void {
  if (width === 4) bytes.writeUInt32LE(Number(BigInt.asUintN(32, BigInt(value))), offset)
  else bytes.writeBigUInt64LE(BigInt.asUintN(64, BigInt(value)), offset)
}

/** A growing file: blocks are appended 8-byte aligned and addressed by their offset (RVA). */
class Blob {
  private parts: Buffer[] = []
  length = 0
  append(bytes: Buffer): number {
    const padding = (8 - (this.length % 8)) % 8
    if (padding) this.push(Buffer.alloc(padding))
    const rva = this.length
    this.push(bytes)
    return rva
  }
  private push(bytes: Buffer) {
    this.parts.push(bytes)
    this.length += bytes.length
  }
  string(text: string): number {
    const utf16 = Buffer.from(`${text}\0`, 'utf16le')
    const out = Buffer.alloc(4 + utf16.length)
    out.writeUInt32LE(utf16.length - 2, 0)
    utf16.copy(out, 4)
    return this.append(out)
  }
  toBuffer(): Buffer {
    return Buffer.concat(this.parts)
  }
}

export function writeMinidump(spec: MinidumpSpec): Buffer {
  const blob = new Blob()
  const threads = [spec.crashingThread, ...(spec.threads ?? [])]
  const exception = spec.exception === null ? null : (spec.exception ?? {})
  const streamCount = 5 + (exception ? 1 : 0)
  blob.append(Buffer.alloc(32)) // header, filled in last
  const directoryRva = blob.append(Buffer.alloc(streamCount * 12))
  const directory: Array<[type: number, size: number, rva: number]> = []

  // System info.
  const systemInfo = Buffer.alloc(56)
  const arm64Old = spec.arch === 'arm64' && spec.arm64Layout !== 'microsoft'
  systemInfo.writeUInt16LE(arm64Old ? 0x8003 : PROCESSOR[spec.arch], 0)
  systemInfo.writeUInt8(4, 6)
  const version = spec.osVersion ?? { major: 10, minor: 0, build: 19045 }
  systemInfo.writeUInt32LE(version.major, 8)
  systemInfo.writeUInt32LE(version.minor, 12)
  systemInfo.writeUInt32LE(version.build, 16)
  systemInfo.writeUInt32LE(PLATFORM[spec.os], 20)
  systemInfo.writeUInt32LE(blob.string(version.csd ?? ''), 24)
  directory.push([7, systemInfo.length, blob.append(systemInfo)])

  // Modules: names and CodeView records first, then the list that points at them.
  const moduleList = Buffer.alloc(4 + spec.modules.length * 108)
  moduleList.writeUInt32LE(spec.modules.length, 0)
  spec.modules.forEach((module, i) => {
    const at = 4 + i * 108
    moduleList.writeBigUInt64LE(BigInt(module.base), at)
    moduleList.writeUInt32LE(module.size, at + 8)
    moduleList.writeUInt32LE(module.timestamp ?? 0x5f000000, at + 16)
    moduleList.writeUInt32LE(blob.string(module.name), at + 20)
    const cv = codeViewRecord(module)
    if (cv) {
      moduleList.writeUInt32LE(cv.length, at + 76)
      moduleList.writeUInt32LE(blob.append(cv), at + 80)
    }
  })
  directory.push([4, moduleList.length, blob.append(moduleList)])

  // Threads: stacks and contexts, then the list; the memory list repeats the stacks (as Breakpad does).
  const threadList = Buffer.alloc(4 + threads.length * 48)
  threadList.writeUInt32LE(threads.length, 0)
  const memory: Array<{ base: bigint; size: number; rva: number }> = []
  let crashingContext = { size: 0, rva: 0 }
  threads.forEach((thread, i) => {
    const at = 4 + i * 48
    threadList.writeUInt32LE(thread.id, at)
    if (thread.stack) {
      const rva = blob.append(thread.stack.bytes)
      threadList.writeBigUInt64LE(BigInt(thread.stack.base), at + 24)
      threadList.writeUInt32LE(thread.stack.bytes.length, at + 32)
      threadList.writeUInt32LE(rva, at + 36)
      memory.push({ base: BigInt(thread.stack.base), size: thread.stack.bytes.length, rva })
    }
    const context = writeContext(spec, thread)
    const rva = blob.append(context)
    threadList.writeUInt32LE(context.length, at + 40)
    threadList.writeUInt32LE(rva, at + 44)
    if (i === 0) crashingContext = { size: context.length, rva }
  })
  directory.push([3, threadList.length, blob.append(threadList)])

  for (const region of spec.memory ?? []) memory.push({ base: BigInt(region.base), size: region.bytes.length, rva: blob.append(region.bytes) })
  const memoryList = Buffer.alloc(4 + memory.length * 16)
  memoryList.writeUInt32LE(memory.length, 0)
  memory.forEach((region, i) => {
    memoryList.writeBigUInt64LE(region.base, 4 + i * 16)
    memoryList.writeUInt32LE(region.size, 4 + i * 16 + 8)
    memoryList.writeUInt32LE(region.rva, 4 + i * 16 + 12)
  })
  directory.push([5, memoryList.length, blob.append(memoryList)])

  if (exception) {
    const stream = Buffer.alloc(168)
    stream.writeUInt32LE(spec.crashingThread.id, 0)
    stream.writeUInt32LE(exception.code ?? 0xc0000005, 8)
    stream.writeUInt32LE(exception.flags ?? 0, 12)
    stream.writeBigUInt64LE(BigInt(exception.address ?? 0), 24)
    stream.writeUInt32LE(crashingContext.size, 160)
    stream.writeUInt32LE(crashingContext.rva, 164)
    directory.push([6, stream.length, blob.append(stream)])
  }
  // A stream Errata does not read (Breakpad's LinuxMaps), to show unknown streams are skipped.
  const maps = Buffer.from('00400000-00401000 r-xp 00000000 00:00 0 /bin/app\n')
  directory.push([0x47670009, maps.length, blob.append(maps)])

  const out = blob.toBuffer()
  out.writeUInt32LE(0x504d444d, 0)
  out.writeUInt32LE(0xa793, 4)
  out.writeUInt32LE(directory.length, 8)
  out.writeUInt32LE(directoryRva, 12)
  out.writeUInt32LE(0x65000000, 20)
  directory.forEach(([type, size, rva], i) => {
    out.writeUInt32LE(type, directoryRva + i * 12)
    out.writeUInt32LE(size, directoryRva + i * 12 + 4)
    out.writeUInt32LE(rva, directoryRva + i * 12 + 8)
  })
  return out
}

function codeViewRecord(module: WriterModule): Buffer | null {
  if (module.codeView) return module.codeView
  if (module.buildId !== undefined) {
    const buildId = Buffer.from(module.buildId, 'hex')
    const record = Buffer.alloc(4 + buildId.length)
    record.writeUInt32LE(0x4270454c, 0)
    buildId.copy(record, 4)
    return record
  }
  if (module.pdb) {
    const name = Buffer.from(`${module.pdb.file}\0`, 'utf8')
    const record = Buffer.alloc(24 + name.length)
    record.writeUInt32LE(0x53445352, 0)
    const guid = module.pdb.guid
    record.writeUInt32LE(parseInt(guid.slice(0, 8), 16), 4)
    record.writeUInt16LE(parseInt(guid.slice(8, 12), 16), 8)
    record.writeUInt16LE(parseInt(guid.slice(12, 16), 16), 10)
    Buffer.from(guid.slice(16, 32), 'hex').copy(record, 12)
    record.writeUInt32LE(module.pdb.age, 20)
    name.copy(record, 24)
    return record
  }
  return null
}

function writeContext(spec: MinidumpSpec, thread: WriterThread): Buffer {
  const regs: Record<string, Address> = { ...thread.registers }
  const u64 = (buf: Buffer, at: number, value: Address | undefined) => buf.writeBigUInt64LE(BigInt.asUintN(64, BigInt(value ?? 0)), at)
  const u32 = (buf: Buffer, at: number, value: Address | undefined) => buf.writeUInt32LE(Number(BigInt.asUintN(32, BigInt(value ?? 0))), at)
  switch (spec.arch) {
    case 'x86': {
      const context = Buffer.alloc(716)
      context.writeUInt32LE(0x0001003f, 0)
      Object.assign(regs, { eip: thread.pc, esp: thread.sp, ebp: thread.fp })
      ;['edi', 'esi', 'ebx', 'edx', 'ecx', 'eax', 'ebp', 'eip'].forEach((name, i) => u32(context, 156 + i * 4, regs[name]))
      u32(context, 196, regs.esp)
      return context
    }
    case 'x86_64': {
      const context = Buffer.alloc(1232)
      context.writeUInt32LE(0x0010000f, 48)
      Object.assign(regs, { rip: thread.pc, rsp: thread.sp, rbp: thread.fp })
      ;['rax', 'rcx', 'rdx', 'rbx', 'rsp', 'rbp', 'rsi', 'rdi', 'r8', 'r9', 'r10', 'r11', 'r12', 'r13', 'r14', 'r15', 'rip'].forEach((name, i) =>
        u64(context, 120 + i * 8, regs[name]),
      )
      return context
    }
    case 'arm': {
      const context = Buffer.alloc(368)
      context.writeUInt32LE(0x40000007, 0)
      const fpName = thread.thumb || spec.os === 'ios' || spec.os === 'mac' ? 'r7' : 'r11'
      Object.assign(regs, { [fpName]: thread.fp, r13: thread.sp, r14: thread.lr ?? 0, r15: thread.pc })
      for (let i = 0; i < 16; i++) u32(context, 4 + i * 4, regs[`r${i}`])
      context.writeUInt32LE(thread.thumb ? 0x20 : 0x10, 68)
      return context
    }
    case 'arm64': {
      const old = spec.arm64Layout !== 'microsoft'
      const context = Buffer.alloc(old ? 796 : 912)
      if (old) context.writeBigUInt64LE(0x80000006n, 0)
      else context.writeUInt32LE(0x00400007, 0)
      Object.assign(regs, { x29: thread.fp, x30: thread.lr ?? 0 })
      for (let i = 0; i < 31; i++) u64(context, 8 + i * 8, regs[`x${i}`])
      u64(context, 256, thread.sp)
      u64(context, 264, thread.pc)
      return context
    }
  }
}
