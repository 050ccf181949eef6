// For tests of symbol sources (ELF, Breakpad): a SymbolSink that records what it is given, and a lookup over
// the recording (the same rules as the SymCache: the function covering an address, size 0
// extending to the next function; the line record covering it).
import type { SymbolSink } from '../symbolication/native/native-symbols.ts'

export interface RecordedFunction {
  address: number
  size: number
  name: string
  folded: boolean
}

export interface RecordedLine {
  address: number
  size: number
  line: number
  fileId: number
}

export class RecordingSink implements SymbolSink {
  readonly files = new Map<number, string>()
  readonly functions: RecordedFunction[] = []
  readonly lines: RecordedLine[] = []
  readonly publics: { address: number; name: string }[] = []

  file(id: number, name: string): void {
    if (this.files.has(id)) throw new Error(`file ${id} given twice`)
    this.files.set(id, name)
  }

  inlineOrigin(): void {}

  func(address: number, size: number, name: string, folded?: boolean): void {
    this.functions.push({ address, size, name, folded: folded ?? false })
  }

  line(address: number, size: number, line: number, fileId: number): void {
    if (!this.files.has(fileId)) throw new Error(`line record names file ${fileId} before it is given`)
    this.lines.push({ address, size, line, fileId })
  }

  inline(): void {}

  publicSymbol(address: number, name: string): void {
    this.publics.push({ address, name })
  }

  /** The function covering `address`, and the file and line (null for line 0 or no record). */
  lookup(address: number): { function: string | null; file: string | null; line: number | null } {
    const functions = [...this.functions].sort((a, b) => a.address - b.address)
    let fn: RecordedFunction | undefined
    for (let i = 0; i < functions.length; i++) {
      const f = functions[i]!
      const end = f.size > 0 ? f.address + f.size : (functions[i + 1]?.address ?? Infinity)
      if (address >= f.address && address < end) fn = f
    }
    const covering = this.lines.filter((l) => address >= l.address && address < l.address + l.size)
    if (covering.length > 1) throw new Error(`${covering.length} line records cover 0x${address.toString(16)}`)
    const record = covering[0]
    const line = record && record.line > 0 ? record.line : null
    return { function: fn?.name ?? null, file: line && record ? this.files.get(record.fileId)! : null, line }
  }
}
