// Writes test/fixtures/native/<object>.golden.json: what llvm-symbolizer answers for every byte
// address around the functions of each native fixture, so server/symbolication/native tests can
// compare the SymCache of the fixture's Breakpad .sym file with it without LLVM installed.
//
//   node --import tsx scripts/make-native-golden.ts
//
// Needs llvm-symbolizer on PATH (Debian: apt-get install llvm). Each answer keeps the outermost
// function (a .sym file without INLINE records names that one) and the innermost file and line
// (what its line records give). The fixtures' first PT_LOAD is at 0, so ELF virtual addresses
// and Breakpad's module-relative addresses are the same numbers.
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const FIXTURES = join(import.meta.dirname, '../test/fixtures/native')
/** Each ELF fixture and the Breakpad file made from it. */
const OBJECTS = [
  { object: 'libcrash.aarch64.so', sym: 'libcrash.aarch64.sym' },
  { object: 'libfixture.so', sym: 'libfixture.so.sym' },
]
/** Addresses this far before the first and after the last symbol are asked too. */
const MARGIN = 0x20

export interface NativeGoldenAnswer {
  address: number
  /** The outermost function llvm-symbolizer names (demangled), null when it names none. */
  function: string | null
  /** The innermost frame's file and line (line 0 → null). */
  file: string | null
  line: number | null
  /** How many frames (inlined ones included) llvm-symbolizer gave. */
  frames: number
}

interface LlvmFrame {
  FileName: string
  FunctionName: string
  Line: number
}

function symbolRange(symText: string): [number, number] {
  let low = Infinity
  let high = 0
  for (const line of symText.split('\n')) {
    const func = /^FUNC (?:m )?([0-9a-f]+) ([0-9a-f]+) /.exec(line)
    const pub = /^PUBLIC (?:m )?([0-9a-f]+) /.exec(line)
    const start = func ? parseInt(func[1]!, 16) : pub ? parseInt(pub[1]!, 16) : null
    if (start === null) continue
    low = Math.min(low, start)
    high = Math.max(high, start + (func ? parseInt(func[2]!, 16) : 1))
  }
  return [Math.max(0, low - MARGIN), high + MARGIN]
}

for (const { object, sym } of OBJECTS) {
  const [low, high] = symbolRange(readFileSync(join(FIXTURES, sym), 'utf8'))
  const addresses = Array.from({ length: high - low }, (_, k) => low + k)
  const output = execFileSync('llvm-symbolizer', [`--obj=${join(FIXTURES, object)}`, '--output-style=JSON', '-f', '-C', '-i', ...addresses.map((a) => `0x${a.toString(16)}`)], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 60_000,
  })
  const answers = (JSON.parse(output) as Array<{ Address: string; Symbol: LlvmFrame[] }>).map((entry): NativeGoldenAnswer => {
    const innermost = entry.Symbol[0]
    const outermost = entry.Symbol[entry.Symbol.length - 1]
    return {
      address: parseInt(entry.Address, 16),
      function: outermost?.FunctionName || null,
      file: innermost?.FileName || null,
      line: innermost?.Line || null,
      frames: entry.Symbol.length,
    }
  })
  const version = execFileSync('llvm-symbolizer', ['--version'], { encoding: 'utf8' }).split('\n').find((line) => /version/i.test(line))?.trim()
  const golden = { object, sym, symbolizer: `llvm-symbolizer (${version}) -f -C -i --output-style=JSON`, answers }
  // One answer a line: diffs of a regenerated file stay readable.
  const text = JSON.stringify({ ...golden, answers: [] }).replace('"answers":[]', `"answers":[\n${answers.map((answer) => JSON.stringify(answer)).join(',\n')}\n]`)
  writeFileSync(join(FIXTURES, `${object}.golden.json`), `${text}\n`)
  console.log(`${object}: ${answers.length} addresses`)
}
