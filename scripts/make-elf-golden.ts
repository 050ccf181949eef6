// Writes test/fixtures/native/<name>.elf-golden.json: llvm-symbolizer's answers (function, file,
// line) for every byte of every function of each ELF fixture, which
// server/symbolication/native/elf-symbols.test.ts compares the pure-JS reader with, so the tests
// need no LLVM. Needs llvm-symbolizer on PATH (Debian: llvm or llvm-14).
//
//   node --import tsx scripts/make-elf-golden.ts
//
// Each answer keeps the outermost function (the symbol table's function, where inlined code sits)
// both demangled and as written, and the innermost file and line (what the line table says).
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { ElfObject } from '../server/symbolication/native/elf.ts'

const OBJECTS = ['libcrash.aarch64.so', 'libfixture.so', 'libcrash.armv7.so', 'libcrash.x86_64.so']
const dir = new URL('../test/fixtures/native/', import.meta.url)

interface SymbolizerFrame {
  FunctionName: string
  FileName: string
  Line: number
}

function symbolize(path: string, addresses: number[], demangle: boolean): SymbolizerFrame[][] {
  const output = execFileSync('llvm-symbolizer', [`--obj=${path}`, '--output-style=JSON', '-f', '-i', demangle ? '-C' : '--no-demangle'], {
    input: addresses.map((a) => `0x${a.toString(16)}`).join('\n'),
    maxBuffer: 64 * 1024 * 1024,
    encoding: 'utf8',
  })
  return output
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { Symbol: SymbolizerFrame[] }).Symbol)
}

const known = (name: string | undefined) => (name && name !== '??' ? name : null)

for (const name of OBJECTS) {
  const path = new URL(name, dir).pathname
  const elf = new ElfObject(readFileSync(path))
  const addresses = new Set<number>()
  for (const f of elf.functions().functions) for (let a = f.address; a < f.address + f.size; a++) addresses.add(a + elf.firstLoadVaddr)
  // A few outside every function: before the code, and past it.
  const last = Math.max(...addresses)
  for (const a of [0, 1, 0x10, last + 1, last + 0x1000]) addresses.add(a)
  const sorted = [...addresses].sort((a, b) => a - b)
  const demangled = symbolize(path, sorted, true)
  const mangled = symbolize(path, sorted, false)
  const answers = sorted.map((address, i) => {
    const frames = demangled[i]!
    const innermost = frames[0]
    const line = innermost && innermost.Line > 0 ? innermost.Line : null
    return {
      address: `0x${address.toString(16)}`,
      function: known(frames.at(-1)?.FunctionName),
      mangledFunction: known(mangled[i]!.at(-1)?.FunctionName),
      file: line ? known(innermost?.FileName) : null,
      line,
    }
  })
  const golden = { object: name, buildId: elf.buildId(), arch: elf.arch, firstLoadVaddr: elf.firstLoadVaddr, answers }
  writeFileSync(new URL(`${name}.elf-golden.json`, dir), `${JSON.stringify(golden, null, 1)}\n`)
  process.stdout.write(`${name}: ${answers.length} addresses\n`)
}
