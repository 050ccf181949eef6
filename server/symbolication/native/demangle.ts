// C++ names from ELF symbol tables, demangled once when a SymCache is built, so frames read as
// `app::Widget::render(int)` whatever was uploaded for the library: a Breakpad .sym file (whose
// names dump_syms already demangled) or the .so itself. The demangler is libc++abi's, compiled to
// JavaScript (the `demangle` package); it takes Mach-O's spelling, one more leading underscore.
import { createRequire } from 'node:module'

type Demangler = (name: string) => string | null
let demangler: Demangler | undefined

/**
 * The package, loaded at first use. Its Emscripten runtime adds a process-wide
 * 'uncaughtException' listener that rethrows, which would turn any error a request leaks into
 * the end of the server (server/leaked-errors.ts logs them and serves on): the listeners it
 * added are taken off again.
 */
function load(): Demangler {
  const uncaught = new Set(process.listeners('uncaughtException'))
  const unhandled = new Set(process.listeners('unhandledRejection'))
  const { demangle } = createRequire(import.meta.url)('demangle') as { demangle: Demangler }
  for (const listener of process.listeners('uncaughtException')) if (!uncaught.has(listener)) process.off('uncaughtException', listener)
  for (const listener of process.listeners('unhandledRejection')) if (!unhandled.has(listener)) process.off('unhandledRejection', listener)
  return demangle
}

/** The demangled name of an Itanium C++ ABI symbol (`_Z…`), else the name as it is. */
export function demangle(name: string): string {
  if (!name.startsWith('_Z')) return name
  demangler ??= load()
  try {
    return demangler(`_${name}`) ?? name
  } catch {
    return name
  }
}
