// C++ names from ELF symbol tables, demangled once when a SymCache is built, so frames read as
// `app::Widget::render(int)` whatever was uploaded for the library: a Breakpad .sym file (whose
// names dump_syms already demangled) or the .so itself. The demangler is libc++abi's, compiled to
// JavaScript (the `demangle` package); it takes Mach-O's spelling, one more leading underscore.
import { createRequire } from 'node:module'

const { demangle: libcxxabiDemangle } = createRequire(import.meta.url)('demangle') as { demangle(name: string): string | null }

/** The demangled name of an Itanium C++ ABI symbol (`_Z…`), else the name as it is. */
export function demangle(name: string): string {
  if (!name.startsWith('_Z')) return name
  try {
    return libcxxabiDemangle(`_${name}`) ?? name
  } catch {
    return name
  }
}
