// The ids native uploads and events are matched by. An ELF build id (what Android notifiers send
// as `codeIdentifier` and what a minidump's BpEL record holds) and a Breakpad debug id (a .sym
// file's MODULE line) name the same module once the build id is converted the way Breakpad's
// dump_syms does it, so every native upload shares one key space (SYMBOLICATION.md §4).
import type { NativeArch } from './native-symbols.ts'

const HEX = /^[0-9a-f]*$/i

/**
 * The Breakpad debug id of an ELF build id: its first 16 bytes (zero-padded when shorter) read as
 * a GUID whose first three fields are little-endian, printed upper-case, plus the age `0`.
 * `b060ad20c6b47781552708aa192e7739fac7c84a` → `20AD60B0B4C68177552708AA192E77390`.
 * Null when the text is not an even number (2 or more) of hex digits.
 */
export function breakpadDebugIdFromBuildId(buildIdHex: string): string | null {
  const hex = buildIdHex.trim()
  if (hex.length < 2 || hex.length % 2 !== 0 || !HEX.test(hex)) return null
  const bytes = Buffer.alloc(16)
  Buffer.from(hex.slice(0, 32), 'hex').copy(bytes)
  // data1 (4 bytes), data2 (2), data3 (2) are byte-swapped; data4 (8) stays as it is.
  bytes.subarray(0, 4).reverse()
  bytes.subarray(4, 6).reverse()
  bytes.subarray(6, 8).reverse()
  return `${bytes.toString('hex').toUpperCase()}0`
}

/**
 * A debug id in Breakpad's form: 32 hex digits of GUID then the age in hex, upper-case, no
 * dashes. Accepts upper or lower case, with or without dashes (`20ad60b0-b4c6-8177-…`); 32
 * digits get the age `0` appended. Windows PDB ids whose age is 16 or more run past 33 digits and
 * are kept whole (up to 40). Null for anything else.
 */
export function normalizeDebugId(id: string): string | null {
  const hex = id.trim().replaceAll('-', '')
  if (!HEX.test(hex) || hex.length < 32 || hex.length > 40) return null
  return (hex.length === 32 ? `${hex}0` : hex).toUpperCase()
}

/** A code id (ELF build id, or a PE timestamp+size) as stored and compared: lower-case hex. Null if not hex. */
export function normalizeCodeId(id: string): string | null {
  const hex = id.trim()
  if (hex.length === 0 || hex.length > 128 || !HEX.test(hex)) return null
  return hex.toLowerCase()
}

const ARCHES: ReadonlyArray<[RegExp, NativeArch]> = [
  [/^(x86|i[3-6]86|ia32)$/, 'x86'],
  [/^(x86_64|x86-64|amd64|x64)$/, 'x86_64'],
  [/^(arm64|arm64e|arm64_32|aarch64|aarch64_be)$/, 'arm64'],
  [/^(arm|armeabi|armeabi-v7a|armhf|armel|armv[4-8][a-z0-9]*|thumbv?[0-9a-z]*)$/, 'arm'],
  [/^(mips|mipsel|mips32|mips32el)$/, 'mips'],
  [/^(mips64|mips64el)$/, 'mips64'],
  [/^(ppc|powerpc)$/, 'ppc'],
  [/^(ppc64|ppc64le|powerpc64|powerpc64le)$/, 'ppc64'],
]

/**
 * Errata's name for a CPU as Breakpad MODULE lines, ELF headers, minidumps and notifiers spell
 * it: x86/i386/i686 → x86, x86_64/amd64 → x86_64, arm/armv7…/armeabi-v7a → arm,
 * arm64/aarch64/arm64e → arm64, … and 'unknown' for anything else.
 */
export function normalizeArch(cpu: string): NativeArch {
  const name = cpu.trim().toLowerCase()
  for (const [pattern, arch] of ARCHES) if (pattern.test(name)) return arch
  return 'unknown'
}
