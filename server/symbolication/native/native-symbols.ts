// The shapes native symbolication shares: what a symbol source (a Breakpad .sym file, an ELF
// object) tells the SymCache builder (symcache.ts), and what a lookup answers. Every address here
// is module-relative (Breakpad's: the ELF virtual address minus the first PT_LOAD's), below 2^53,
// so a JavaScript number holds it exactly.

/** CPU architectures as Errata names them (Breakpad's MODULE line says x86, x86_64, arm, arm64, …). */
export type NativeArch = 'x86' | 'x86_64' | 'arm' | 'arm64' | 'mips' | 'mips64' | 'ppc' | 'ppc64' | 'unknown'

/** What identifies a module and its symbols. */
export interface ModuleIdentity {
  /** Breakpad debug id: 33 upper-case hex characters (GUID + age), the key every native lookup uses. */
  debugId: string
  /** ELF GNU build id (lower-case hex, full length), or the PE code id; null when unknown. */
  codeId: string | null
  /** 'linux', 'android', 'windows', 'mac', 'ios', … as the source says it. */
  os: string
  arch: NativeArch
  /** The module's file name ("libcrash.so"). */
  moduleName: string
}

/**
 * What a symbol source feeds the builder, in any order (the builder sorts). Files and inline
 * origins are referred to by the source's own numbers. Line and inline records stand alone (DWARF
 * line tables are per compilation unit, not per function): a lookup finds the function covering
 * an address, then the line record covering it, then the inline records covering it.
 */
export interface SymbolSink {
  file(id: number, name: string): void
  inlineOrigin(id: number, name: string): void
  /** A function: `size` 0 extends to the next symbol, as a PUBLIC does. `folded`: Breakpad's `m` (identical code folded). */
  func(address: number, size: number, name: string, folded?: boolean): void
  /** `line` 0: no source line (compiler-made code); looked up as unknown, never printed as ":0". */
  line(address: number, size: number, line: number, fileId: number): void
  /** Code inlined at `depth` (0: into the function itself), called from callFile:callLine. */
  inline(depth: number, callLine: number, callFileId: number, originId: number, ranges: ReadonlyArray<readonly [address: number, size: number]>): void
  /** A PUBLIC symbol: it covers up to the next PUBLIC or FUNC (the PUBLIC fallback rule, SYMBOLICATION.md). */
  publicSymbol(address: number, name: string, folded?: boolean): void
  /** A Breakpad `STACK CFI INIT …` or `STACK CFI …` record, the text after "STACK CFI ", for the stack walker. */
  cfi?(record: string): void
}

/** One frame of a lookup's answer, innermost (the inlined callee) first. */
export interface NativeLocation {
  /** Demangled where the source gives it demangled (Breakpad files do). */
  function: string | null
  /** As the source names it; the caller strips the project root. */
  file: string | null
  /** Null for line 0 and for an address outside every line record. */
  line: number | null
  /** True for frames of inlined code (every entry but the last of a lookup's answer). */
  inlined: boolean
}
