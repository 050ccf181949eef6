/**
 * Content hashes that bundlers put in output file names, which change with every build even when
 * the code in the file did not: webpack and Parcel `main.3f2a9c1b.js`, `787.a1b2c3d4.chunk.js`;
 * Next.js `framework-4ed89e9640adfb9e.js`; Vite/Rollup `index-B7xKq2_d.js`; esbuild
 * `chunk-FVPW27KR.js`. Only a hash that follows a name counts: a file named by its hash alone
 * has no stable part to group by.
 */

/** Hex digits (webpack, Parcel, Next.js, Rollup 3): 8 or more, at least one a digit. */
const HEX = /^(?=[a-f]*\d)[0-9a-f]{8,}$/
/** Vite, Rollup 4 and Rolldown write 8 base64url characters; esbuild 8 upper-case base32 ones. */
const SHORT = /^[\w-]{8}$/
/** What a random 8-character hash rarely is, and a name often: lower case, CamelCase, a word and a small number. */
const WORDS = /^(?:[A-Z]?[a-z]{2,}(?:[A-Z][a-z]{2,})*|[a-z]+\d{1,2})$/

function isHash(part: string): boolean {
  return HEX.test(part) || (SHORT.test(part) && /[\dA-Z_-]/.test(part) && !WORDS.test(part))
}

/** `[name]-[hash]`: the hash after the last dash, or (base64url holds dashes) the last 8 characters after a dash. */
function withoutDashHash(part: string): string | null {
  const dash = part.lastIndexOf('-')
  if (dash > 0 && HEX.test(part.slice(dash + 1))) return `${part.slice(0, dash)}-*`
  const short = part.length - 8
  if (short > 1 && part[short - 1] === '-' && isHash(part.slice(short))) return `${part.slice(0, short)}*`
  return null
}

/**
 * A bundle's file name with its content hash as `*` (`main.*.js`, `index-*.js`); any other name
 * unchanged. Only JavaScript files: source files and other platforms' files keep their names.
 */
export function withoutContentHash(fileName: string): string {
  if (!/\.[cm]?js$/.test(fileName)) return fileName
  const parts = fileName.split('.')
  // From the extension leftwards, as hashes sit just before it or before `.chunk.js`.
  for (let i = parts.length - 2; i >= 0; i--) {
    const part = parts[i]!
    const replaced = withoutDashHash(part) ?? (i > 0 && isHash(part) ? '*' : null)
    if (replaced !== null) {
      parts[i] = replaced
      return parts.join('.')
    }
  }
  return fileName
}
