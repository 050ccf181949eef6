// An ELF object (a .so, or its `objcopy --only-keep-debug` extract) → a SymbolSink: functions
// from .symtab (else .dynsym), line records from .debug_line, and the module's identity.
//
// - Addresses are module-relative: the ELF virtual address minus the first PT_LOAD's (as
//   dump_syms, so .sym and .so uploads of one library answer alike).
// - Function names are the symbol table's, mangled as they are there (`_ZN3app6Widget6renderEi`);
//   demangling is left to whoever shows them.
// - File names are the line tables', joined with their include directory and the unit's
//   DW_AT_comp_dir (read from .debug_info when it can be), as llvm-symbolizer prints them.
// - os: 'android' when the object carries the NDK's `.note.android.ident` note, else the caller's
//   `os`, else 'linux' (ELF's OSABI byte says SYSV for both).
// - Inline records are not read (that needs .debug_info's DW_TAG_inlined_subroutine): an address
//   in inlined code answers the outer function with the inlined code's file and line.
import { compDirsByLineOffset, decodeLineTables } from './dwarf-line.ts'
import { ElfError, ElfObject } from './elf.ts'
import type { ModuleIdentity, SymbolSink } from './native-symbols.ts'
import { breakpadDebugIdFromBuildId } from './native-ids.ts'
import { demangle } from './demangle.ts'

export interface ElfSymbolsOptions {
  /** The module's name when the object names none (no DT_SONAME, as in debug-only extracts): the upload's file name. */
  moduleName?: string
  /** The OS when the object does not tell (default 'linux'). */
  os?: string
  /** The most bytes one compressed debug section may unpack to (default 1 GiB). */
  maxSectionBytes?: number
}

export interface ElfModuleInfo extends ModuleIdentity {
  /** Line records came from DWARF line tables (false for a stripped object: "upload the unstripped library"). */
  hasLineInfo: boolean
  /** Function names came from .symtab or .dynsym. */
  hasSymbols: boolean
  /** Where the functions came from: .symtab (all functions), .dynsym (exported ones only), or nowhere. */
  symbolsFrom: 'symtab' | 'dynsym' | null
}

/**
 * Reads an ELF object into `sink` and answers its identity. Throws ElfError (or DwarfError, for a
 * malformed line table) with a message a user understands; so-file.ts turns both into a
 * NativeUploadError.
 */
export function readElfSymbols(buf: Buffer, sink: SymbolSink, options: ElfSymbolsOptions = {}): ElfModuleInfo {
  const elf = new ElfObject(buf, { maxSectionBytes: options.maxSectionBytes })
  const buildId = elf.buildId()
  if (!buildId) throw new ElfError('has no GNU build id; link with -Wl,--build-id (the Android NDK does by default)')

  const { from, functions } = elf.functions()
  // Demangled here, once: frames read the same whether the library's .sym or its .so was uploaded.
  for (const f of functions) sink.func(f.address, f.size, demangle(f.name), f.folded || undefined)

  let hasLineInfo = false
  const debugLine = elf.section('.debug_line')
  const lineData = debugLine ? elf.sectionData(debugLine) : null
  if (lineData) {
    const data = (name: string) => {
      const section = elf.section(name)
      return section ? elf.sectionData(section) : null
    }
    const str = data('.debug_str')
    const lineStr = data('.debug_line_str')
    const info = data('.debug_info')
    const abbrev = data('.debug_abbrev')
    const compDirs = info && abbrev ? compDirsByLineOffset({ info, abbrev, str, lineStr, strOffsets: data('.debug_str_offsets'), littleEndian: elf.littleEndian, addressSize: elf.bits / 8 }) : new Map<number, string>()
    // File numbers are per line table; the sink gets one id per distinct path.
    const fileIds = new Map<string, number>()
    let tableFiles: ReadonlyArray<string | undefined> = []
    let tableIds: (number | undefined)[] = []
    const base = elf.firstLoadVaddr
    decodeLineTables(
      lineData,
      { littleEndian: elf.littleEndian, codeStart: elf.codeStart, compDirs, str, lineStr },
      {
        table(files) {
          tableFiles = files
          tableIds = []
        },
        range(address, size, line, file) {
          const relative = address - base
          if (relative < 0) return
          let id = tableIds[file]
          if (id === undefined) {
            const name = tableFiles[file]
            if (name === undefined) return
            id = fileIds.get(name)
            if (id === undefined) {
              id = fileIds.size
              fileIds.set(name, id)
              sink.file(id, name)
            }
            tableIds[file] = id
          }
          sink.line(relative, size, line, id)
          hasLineInfo = true
        },
      },
    )
  }

  const android = elf.noteNames().includes('Android')
  return {
    debugId: breakpadDebugIdFromBuildId(buildId)!,
    codeId: buildId,
    os: android ? 'android' : (options.os ?? 'linux'),
    arch: elf.arch,
    moduleName: elf.soname() ?? options.moduleName ?? 'unknown',
    hasLineInfo,
    hasSymbols: functions.length > 0,
    symbolsFrom: from,
  }
}
