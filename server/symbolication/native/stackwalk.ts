// Stack walking over a parsed minidump: frame 0 from the thread's context, then each caller from
// the callee's Breakpad STACK CFI rules when its module has them, else from the frame-pointer
// chain. Per architecture as rust-minidump's minidump-unwind (amd64.rs, x86.rs, arm64.rs, arm.rs)
// does it, with the CFI postfix evaluator of breakpad-symbols' sym_file/walker.rs. No stack
// scanning. Every step is checked: the caller's stack pointer moves up and stays inside the
// thread's stack, its return address lies in a known module, and the walk stops at maxFrames.

import type { NativeArch } from './native-symbols.ts'
import { type CpuContext, type MemoryRegion, type Minidump, type MinidumpModule, type Registers } from './minidump.ts'

/** Call frame information of one module, as the SymCache holds it (module-relative addresses). */
export interface ModuleSymbols {
  /**
   * The `STACK CFI INIT <address> <size> <rules>` record covering `relativeAddress` and the
   * `STACK CFI <address> <rules>` records after it, each as the text after "STACK CFI "; null
   * when none covers it. Deltas past `relativeAddress` may be included: the walker skips them.
   */
  cfiAt(relativeAddress: number): { init: string; deltas: string[] } | null
}

/** The symbols of a module, looked up by its debug id; null when there are none. */
export type SymbolsFor = (module: MinidumpModule) => ModuleSymbols | null

/** How a frame was found: the thread's context, call frame information, or the frame-pointer chain. */
export type FrameTrust = 'context' | 'cfi' | 'frame_pointer'

export interface FrameModule {
  name: string
  debugId: string | null
  codeId: string | null
  base: bigint
}

export interface StackFrame {
  /** The instruction pointer (frame 0) or the return address, as found: show this one. */
  address: bigint
  /**
   * The address to look up: `address` for frame 0; for callers, the return address moved back
   * into the call instruction (x86, x86_64: −1; arm64: align down to 4, −4; arm: clear bit 0, −2).
   */
  lookupAddress: bigint
  trust: FrameTrust
  /** The module holding `lookupAddress`, or null (frame 0 may lie outside every module). */
  module: FrameModule | null
  /** `address` − the module's base: what "libfoo.so + 0x1234" shows. */
  moduleOffset: bigint | null
  /** `lookupAddress` − the module's base: what a SymCache lookup takes. */
  lookupOffset: bigint | null
}

export interface WalkOptions {
  /** Frames per thread, frame 0 included (for example 256). */
  maxFrames: number
  /**
   * walkThreads: the threads walked, the crashing one first (default 128: a hostile dump may list
   * thousands, and the work is threads × maxFrames).
   */
  maxThreads?: number
}

export interface ThreadStack {
  threadId: number
  /** The thread the exception stream names (the first thread when there is no exception). */
  crashed: boolean
  frames: StackFrame[]
}

/** The frames of one thread: `threadId`'s, else the crashing thread's (the exception's, else the first). */
export function walkStack(dump: Minidump, threadId: number | undefined, symbolsFor: SymbolsFor, options: WalkOptions): StackFrame[] {
  return walkOne(new Walker(dump, symbolsFor, options), dump, threadId)
}

function walkOne(walker: Walker, dump: Minidump, threadId: number | undefined): StackFrame[] {
  const crashedId = crashingThreadId(dump)
  const id = threadId ?? crashedId
  const thread = dump.threads.find((t) => t.id === id) ?? null
  // The crashing thread starts from the exception's context (its own context is the handler's).
  const context = id === crashedId && dump.exception?.context ? dump.exception.context : (thread?.context ?? null)
  if (!context) return []
  return walker.walk(context, thread?.stack ?? null)
}

/** Every thread's frames, the crashing thread first, so an event page can show them all. */
export function walkThreads(dump: Minidump, symbolsFor: SymbolsFor, options: WalkOptions): ThreadStack[] {
  const crashedId = crashingThreadId(dump)
  const ids = dump.threads.map((t) => t.id)
  if (crashedId !== null && !ids.includes(crashedId)) ids.unshift(crashedId)
  ids.sort((a, b) => Number(b === crashedId) - Number(a === crashedId))
  const walker = new Walker(dump, symbolsFor, options)
  return ids.slice(0, Math.max(0, options.maxThreads ?? DEFAULT_MAX_THREADS)).map((threadId) => ({ threadId, crashed: threadId === crashedId, frames: walkOne(walker, dump, threadId) }))
}

const DEFAULT_MAX_THREADS = 128

function crashingThreadId(dump: Minidump): number | null {
  return dump.exception?.threadId ?? dump.threads[0]?.id ?? null
}

/** How one architecture names and treats its registers. */
interface ArchRules {
  width: 4 | 8
  pc: string
  sp: string
  /** Registers a callee preserves: the caller inherits them unless a CFI rule says otherwise. */
  calleeSaved: readonly string[]
  /** Other spellings of registers (CFI records and contexts differ): alias → canonical. */
  aliases: Readonly<Record<string, string>>
  /** The return address moved back into the call instruction, for lookups. */
  adjust(address: bigint): bigint
}

const RULES: Partial<Record<NativeArch, ArchRules>> = {
  x86: { width: 4, pc: 'eip', sp: 'esp', calleeSaved: ['ebp', 'ebx', 'edi', 'esi'], aliases: {}, adjust: (a) => a - 1n },
  x86_64: { width: 8, pc: 'rip', sp: 'rsp', calleeSaved: ['rbx', 'rbp', 'r12', 'r13', 'r14', 'r15'], aliases: {}, adjust: (a) => a - 1n },
  arm: {
    width: 4,
    pc: 'pc',
    sp: 'sp',
    calleeSaved: ['r4', 'r5', 'r6', 'r7', 'r8', 'r9', 'r10', 'r11'],
    aliases: { r13: 'sp', r14: 'lr', r15: 'pc', fp: 'r11' },
    adjust: (a) => (a & ~1n) - 2n,
  },
  arm64: {
    width: 8,
    pc: 'pc',
    sp: 'sp',
    calleeSaved: ['x19', 'x20', 'x21', 'x22', 'x23', 'x24', 'x25', 'x26', 'x27', 'x28', 'x29'],
    aliases: { fp: 'x29', lr: 'x30', x31: 'sp' },
    adjust: (a) => (a & ~3n) - 4n,
  },
}

interface Frame {
  registers: Registers
  trust: FrameTrust
  lookupAddress: bigint
}

/** Bounds of a CFI rule set: text, tokens, evaluation stack and delta records. */
const MAX_RULE_TEXT = 4096
const MAX_EXPRESSION_TOKENS = 256
const MAX_EVAL_STACK = 64
const MAX_DELTAS = 4096
const U64 = (1n << 64n) - 1n

class Walker {
  private readonly rules: ArchRules | undefined
  private readonly modules: MinidumpModule[]
  private readonly symbols = new Map<MinidumpModule, ModuleSymbols | null>()
  /** CFI record text → its address and rules, parsed once per walk (threads share functions). */
  private readonly parsedRecords = new Map<string, { address: number; rules: Map<string, string[]> } | null>()
  private readonly pointerMask: bigint
  private readonly ptrAuthMask: bigint

  constructor(
    private readonly dump: Minidump,
    private readonly symbolsFor: SymbolsFor,
    private readonly options: WalkOptions,
  ) {
    this.rules = RULES[dump.arch]
    this.modules = [...dump.modules].sort((a, b) => (a.base < b.base ? -1 : a.base > b.base ? 1 : 0))
    this.pointerMask = this.rules?.width === 4 ? 0xffffffffn : U64
    // arm64 pointer authentication: keep the bits a user-space address can have (rust-minidump's
    // ptr_auth_strip): 47 bits, or up to the highest module's end.
    let highest = (1n << 47n) - 1n
    for (const module of this.modules) if (module.base + BigInt(module.size) > highest) highest = module.base + BigInt(module.size)
    let mask = 1n
    while (mask <= highest && mask < U64) mask = (mask << 1n) | 1n
    this.ptrAuthMask = mask
  }

  walk(context: CpuContext, stack: MemoryRegion | null): StackFrame[] {
    const maxFrames = Math.max(0, Math.floor(this.options.maxFrames))
    if (maxFrames === 0) return []
    const rules = this.rules
    const frames: StackFrame[] = [this.frame(context.pc, context.pc, 'context')]
    if (!rules) return frames
    const region = stack ?? this.regionAt(context.sp)
    if (!region) return frames
    const stackStart = region.base
    const stackEnd = region.base + BigInt(region.bytes.length)

    let callee: Frame = { registers: { ...context.registers }, trust: 'context', lookupAddress: context.pc }
    let calleeThumb = context.thumb
    let sameSpSteps = 0
    while (frames.length < maxFrames) {
      const calleeSp = callee.registers[rules.sp]
      const calleePc = callee.registers[rules.pc]
      if (calleeSp === undefined || calleePc === undefined) break
      // CFI first, then frame pointers: the first caller that passes the checks is taken.
      let next = this.check(this.byCfi(callee, rules), 'cfi', callee, calleeSp, calleePc, sameSpSteps, stackStart, stackEnd, rules)
      next ??= this.check(this.byFramePointer(callee, rules, calleeThumb), 'frame_pointer', callee, calleeSp, calleePc, sameSpSteps, stackStart, stackEnd, rules)
      if (!next) break
      sameSpSteps = next.registers[rules.sp] === calleeSp ? sameSpSteps + 1 : 0
      const address = next.registers[rules.pc]!
      frames.push(this.frame(address, next.lookupAddress, next.trust))
      calleeThumb = (address & 1n) === 1n
      callee = next
    }
    return frames
  }

  /**
   * The caller a step found, if it makes sense: a return address past the first page and in a
   * module, a stack pointer that moved up (arm leaf functions may keep it, once, when the pc
   * changes) and stays inside the stack.
   */
  private check(
    registers: Registers | null,
    trust: FrameTrust,
    callee: Frame,
    calleeSp: bigint,
    calleePc: bigint,
    sameSpSteps: number,
    stackStart: bigint,
    stackEnd: bigint,
    rules: ArchRules,
  ): Frame | null {
    if (!registers) return null
    let pc = registers[rules.pc]
    const sp = registers[rules.sp]
    if (pc === undefined || sp === undefined) return null
    if (this.dump.arch === 'arm64') registers[rules.pc] = pc = pc & this.ptrAuthMask
    if (pc < 4096n) return null
    const arm = this.dump.arch === 'arm64' || this.dump.arch === 'arm'
    const leafStep = arm && sp === calleeSp && pc !== calleePc && (callee.trust === 'context' || trust === 'cfi') && sameSpSteps === 0
    if (sp <= calleeSp && !leafStep) return null
    if (sp < stackStart || sp > stackEnd) return null
    const lookupAddress = rules.adjust(pc)
    if (!this.moduleAt(lookupAddress)) return null
    return { registers, trust, lookupAddress }
  }

  private frame(address: bigint, lookupAddress: bigint, trust: FrameTrust): StackFrame {
    const module = this.moduleAt(lookupAddress)
    return {
      address,
      lookupAddress,
      trust,
      module: module && { name: module.name, debugId: module.debugId, codeId: module.codeId, base: module.base },
      moduleOffset: module ? address - module.base : null,
      lookupOffset: module ? lookupAddress - module.base : null,
    }
  }

  private moduleAt(address: bigint): MinidumpModule | null {
    const modules = this.modules
    let lo = 0
    let hi = modules.length - 1
    let found = -1
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      if (modules[mid]!.base <= address) {
        found = mid
        lo = mid + 1
      } else hi = mid - 1
    }
    // Modules may overlap (rarely, and in hostile dumps): look a few back, never the whole list.
    for (let i = found; i >= 0 && i > found - 8; i--) {
      const module = modules[i]!
      if (address < module.base + BigInt(module.size)) return module
    }
    return null
  }

  private regionAt(address: bigint): MemoryRegion | null {
    const regions = this.dump.memory
    let lo = 0
    let hi = regions.length - 1
    let found = -1
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      if (regions[mid]!.base <= address) {
        found = mid
        lo = mid + 1
      } else hi = mid - 1
    }
    // Regions may overlap (a stack is in the thread list and the memory list): look a few back.
    for (let i = found; i >= 0 && i > found - 8; i--) {
      const region = regions[i]!
      if (address >= region.base && address < region.base + BigInt(region.bytes.length)) return region
    }
    return null
  }

  /** A pointer-sized value from the dump's captured memory, or null outside it. */
  private readPointer(address: bigint, width: 4 | 8): bigint | null {
    if (address < 0n || address > U64) return null
    const region = this.regionAt(address)
    if (!region) return null
    const offset = Number(address - region.base)
    if (offset + width > region.bytes.length) return null
    return width === 8 ? region.bytes.readBigUInt64LE(offset) : BigInt(region.bytes.readUInt32LE(offset))
  }

  private symbolsOf(module: MinidumpModule): ModuleSymbols | null {
    if (!this.symbols.has(module)) this.symbols.set(module, module.debugId ? this.symbolsFor(module) : null)
    return this.symbols.get(module) ?? null
  }

  // --- CFI (breakpad-symbols sym_file/walker.rs walk_with_stack_cfi) ---

  private byCfi(callee: Frame, rules: ArchRules): Registers | null {
    const module = this.moduleAt(callee.lookupAddress)
    if (!module) return null
    const symbols = this.symbolsOf(module)
    if (!symbols) return null
    const relative = Number(callee.lookupAddress - module.base)
    const found = symbols.cfiAt(relative)
    if (!found) return null

    const init = this.parseRecord(found.init, true, rules)
    if (!init) return null
    const start = init.address
    const expressions = new Map(init.rules)
    let deltas = 0
    for (const text of found.deltas) {
      if (++deltas > MAX_DELTAS) break
      const delta = this.parseRecord(text, false, rules)
      if (!delta) return null
      if (delta.address > relative) continue
      for (const [name, expression] of delta.rules) expressions.set(name, expression)
    }

    // arm64: an lr the frame-pointer walk recovered is a guess, usable only at a function's entry (rust-minidump).
    const lrIsGuess = this.dump.arch === 'arm64' && callee.trust === 'frame_pointer' && module.base + BigInt(start) !== callee.lookupAddress

    const cfaRule = expressions.get('.cfa')
    const raRule = expressions.get('.ra')
    if (!cfaRule || !raRule) return null
    const cfa = this.evaluate(cfaRule, callee.registers, lrIsGuess, null, rules)
    if (cfa === null || cfa > this.pointerMask) return null
    const ra = this.evaluate(raRule, callee.registers, lrIsGuess, cfa, rules)
    if (ra === null || ra > this.pointerMask) return null

    const caller: Registers = {}
    for (const name of rules.calleeSaved) {
      const value = callee.registers[name]
      if (value !== undefined) caller[name] = value
    }
    caller[rules.sp] = cfa
    caller[rules.pc] = ra
    for (const [name, rule] of expressions) {
      if (name === '.cfa' || name === '.ra') continue
      const value = this.evaluate(rule, callee.registers, lrIsGuess, cfa, rules)
      if (value === null || value > this.pointerMask) delete caller[name]
      else caller[name] = value
    }
    return caller
  }

  /** `INIT <address> <size> <rules>` or `<address> <rules>`; null when malformed. */
  private parseRecord(text: string, isInit: boolean, rules: ArchRules): { address: number; rules: Map<string, string[]> } | null {
    const key = isInit ? `I${text}` : text
    const cached = this.parsedRecords.get(key)
    if (cached !== undefined) return cached
    let parsed: { address: number; rules: Map<string, string[]> } | null = null
    if (text.length <= MAX_RULE_TEXT) {
      const tokens = text.trim().split(/\s+/)
      if (isInit && tokens[0] === 'INIT') tokens.shift()
      const address = parseHexAddress(tokens[0])
      const expressions = new Map<string, string[]>()
      if (address !== null && parseRules(tokens.slice(isInit ? 2 : 1), expressions, rules)) parsed = { address, rules: expressions }
    }
    if (this.parsedRecords.size < 100_000) this.parsedRecords.set(key, parsed)
    return parsed
  }

  /** A postfix expression: + - * / % @ (align) ^ (deref), registers, .cfa, decimal integers. */
  private evaluate(tokens: readonly string[], registers: Registers, lrIsGuess: boolean, cfa: bigint | null, rules: ArchRules): bigint | null {
    const stack: bigint[] = []
    for (const token of tokens) {
      if (stack.length > MAX_EVAL_STACK) return null
      if (token.length === 1 && '+-*/%@'.includes(token)) {
        const rhs = stack.pop()
        const lhs = stack.pop()
        if (rhs === undefined || lhs === undefined) return null
        let value: bigint
        switch (token) {
          case '+':
            value = lhs + rhs
            break
          case '-':
            value = lhs - rhs
            break
          case '*':
            value = lhs * rhs
            break
          case '/':
            if (rhs === 0n) return null
            value = lhs / rhs
            break
          case '%':
            if (rhs === 0n) return null
            value = lhs % rhs
            break
          default:
            // Align down to a power of two.
            if (rhs === 0n || (rhs & (rhs - 1n)) !== 0n) return null
            value = lhs & (U64 ^ (rhs - 1n))
        }
        stack.push(BigInt.asUintN(64, value))
      } else if (token === '^') {
        const address = stack.pop()
        if (address === undefined) return null
        const value = this.readPointer(address, rules.width)
        if (value === null) return null
        stack.push(value)
      } else if (token === '.cfa') {
        if (cfa === null) return null
        stack.push(cfa)
      } else if (token === '.undef') {
        return null
      } else if (/^-?\d{1,20}$/.test(token)) {
        stack.push(BigInt.asUintN(64, BigInt(token)))
      } else {
        const name = canonicalRegister(token, rules)
        const value = lrIsGuess && name === 'x30' ? undefined : registers[name]
        if (value === undefined) return null
        stack.push(value)
      }
    }
    return stack.length === 1 ? stack[0]! : null
  }

  // --- frame pointers (rust-minidump's get_caller_by_frame_pointer per architecture) ---

  private byFramePointer(callee: Frame, rules: ArchRules, calleeThumb: boolean): Registers | null {
    const regs = callee.registers
    const width = rules.width
    const w = BigInt(width)
    switch (this.dump.arch) {
      case 'x86':
      case 'x86_64': {
        const [bpName, spName, ipName] = this.dump.arch === 'x86' ? ['ebp', 'esp', 'eip'] : ['rbp', 'rsp', 'rip']
        const bp = regs[bpName]
        const sp = regs[spName]
        if (bp === undefined || sp === undefined || bp === 0n || bp >= this.pointerMask - 2n * w) return null
        // Windows x64 may point rbp into the middle of the frame: try up to 240 bytes up, 16 at a time.
        const tries = this.dump.arch === 'x86_64' && this.dump.systemInfo?.os === 'windows' ? 16 : 1
        for (let i = 0; i < tries; i++) {
          const at = bp + BigInt(i * 16)
          const callerIp = this.readPointer(at + w, width)
          const callerBp = this.readPointer(at, width)
          if (callerIp === null || callerBp === null) return null
          const callerSp = at + 2n * w
          // Frames are ordered: the caller's frame lies above. A saved bp of 0 marks the outermost frame.
          if (callerBp !== 0n && callerBp < callerSp) continue
          if (callerBp !== 0n && this.readPointer(callerBp, width) === null) return null
          if (this.dump.arch === 'x86_64' && callerIp > 0x7fffffffffffn && callerIp < 0xffff800000000000n) continue
          if (callerSp <= sp) continue
          return { [ipName]: callerIp, [spName]: callerSp, [bpName]: callerBp }
        }
        return null
      }
      case 'arm64': {
        // Every frame is taken for a normal one (rust-minidump): [fp, lr] pushed at fp. A frameless
        // leaf's caller is then skipped, unless CFI says where its return address is.
        const fp = regs.x29
        if (fp === undefined || fp === 0n || fp >= U64 - 2n * w) return null
        const savedFp = this.readPointer(fp, width)
        const savedLr = this.readPointer(fp + w, width)
        if (savedFp === null || savedLr === null) return null
        const callerFp = savedFp & this.ptrAuthMask
        const callerPc = savedLr & this.ptrAuthMask
        if (callerPc < 0x1000n || callerPc > 0x000fffffffffffffn) return null
        const caller: Registers = { pc: callerPc, x29: callerFp, sp: fp + 2n * w }
        // The caller's own lr, from its frame record: lets a CFI rule `.ra: x30` at an entry use it.
        const callerLr = callerFp === 0n ? null : this.readPointer(callerFp + w, width)
        if (callerLr !== null) caller.x30 = callerLr & this.ptrAuthMask
        return caller
      }
      case 'arm': {
        // [fp, lr] pushed at fp, fp being r7 in Thumb code and on Apple systems, r11 otherwise.
        const apple = this.dump.systemInfo?.os === 'ios' || this.dump.systemInfo?.os === 'mac'
        const fp = regs[apple || calleeThumb ? 'r7' : 'r11']
        if (fp === undefined || fp === 0n || fp >= this.pointerMask - 2n * w) return null
        const callerFp = this.readPointer(fp, width)
        const callerPc = this.readPointer(fp + w, width)
        if (callerFp === null || callerPc === null) return null
        return { pc: callerPc, sp: fp + 2n * w, [apple || (callerPc & 1n) === 1n ? 'r7' : 'r11']: callerFp }
      }
      default:
        return null
    }
  }
}

function canonicalRegister(token: string, rules: ArchRules): string {
  const name = token.startsWith('$') ? token.slice(1) : token
  return rules.aliases[name] ?? name
}

/** `.cfa: <expr> .ra: <expr> $rbx: <expr> …` into register → tokens; false when malformed. */
function parseRules(tokens: readonly string[], into: Map<string, string[]>, rules: ArchRules): boolean {
  let register: string | null = null
  let expression: string[] = []
  const flush = () => {
    if (register === null) return true
    if (expression.length === 0 || expression.length > MAX_EXPRESSION_TOKENS) return false
    into.set(register, expression)
    return true
  }
  for (const token of tokens) {
    if (token === '') continue
    if (token.endsWith(':')) {
      if (!flush()) return false
      const name = token.slice(0, -1)
      register = name === '.cfa' || name === '.ra' ? name : canonicalRegister(name, rules)
      expression = []
    } else {
      if (register === null) return false
      expression.push(token)
    }
  }
  return register !== null && flush()
}

function parseHexAddress(text: string | undefined): number | null {
  if (!text || !/^[0-9a-fA-F]{1,13}$/.test(text)) return null
  return parseInt(text, 16)
}
