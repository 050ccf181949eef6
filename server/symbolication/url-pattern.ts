/**
 * Whether `text` matches the upload pattern `pattern` (spec rule 2): equal, or equal with each
 * `*` standing for zero or more characters (several `*` may occur). No regular expression: the
 * classic two-pointer walk that returns to the last `*` takes at most pattern × text steps,
 * whatever the pattern, so an uploaded pattern cannot make matching slow.
 */
export function wildcardMatch(pattern: string, text: string): boolean {
  if (!pattern.includes('*')) return pattern === text
  let p = 0
  let t = 0
  let star = -1
  let resume = 0
  while (t < text.length) {
    if (p < pattern.length && pattern[p] !== '*' && pattern[p] === text[t]) {
      p++
      t++
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++
      resume = t
    } else if (star !== -1) {
      p = star + 1
      t = ++resume
    } else return false
  }
  while (p < pattern.length && pattern[p] === '*') p++
  return p === pattern.length
}

/** The ways a frame's file may name an upload, best first; each tier is tried before the next (rule 4 applies within one). */
export interface FileVariants {
  /** The file as the notifier sent it. */
  exact: string
  /** Without a query string or fragment (cache busters), and without `file://` (Node ES modules). */
  normalized: string | null
  /** Node only: the trailing paths after each `/` of an absolute path (`/srv/app/dist/a.js` → `srv/app/dist/a.js`, `app/dist/a.js`, …, `a.js`), longest first. */
  suffixes: string[]
}

const MAX_SUFFIXES = 32

export function fileVariants(file: string, kind: 'url' | 'path'): FileVariants {
  const end = file.search(/[?#]/)
  let normalized = end === -1 ? file : file.slice(0, end)
  if (normalized.startsWith('file://')) normalized = safeDecode(normalized.slice('file://'.length))
  const suffixes: string[] = []
  if (kind === 'path' && normalized.startsWith('/')) {
    for (let i = 0; i !== -1 && suffixes.length < MAX_SUFFIXES; i = normalized.indexOf('/', i + 1)) {
      const rest = normalized.slice(i + 1)
      if (rest !== '') suffixes.push(rest)
    }
  }
  return { exact: file, normalized: normalized === file ? null : normalized, suffixes }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** Every string an upload's minifiedUrl may equal for these variants (to narrow the database query). */
export function variantStrings(variants: FileVariants): string[] {
  return [variants.exact, ...(variants.normalized === null ? [] : [variants.normalized]), ...variants.suffixes]
}

/**
 * How well an upload pattern matches a frame's file: 0 for the file as sent, 1 once normalized,
 * 2 for a relative upload path that ends an absolute frame path (at a `/`); null for no match.
 * Wildcard patterns count like exact ones (rule 2), and so are tried against each form.
 */
export function matchTier(pattern: string, variants: FileVariants): 0 | 1 | 2 | null {
  if (wildcardMatch(pattern, variants.exact)) return 0
  if (variants.normalized !== null && wildcardMatch(pattern, variants.normalized)) return 1
  if (variants.suffixes.length > 0 && !pattern.startsWith('/') && !pattern.includes('://')) {
    for (const suffix of variants.suffixes) if (wildcardMatch(pattern, suffix)) return 2
  }
  return null
}
