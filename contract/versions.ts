// The one order of app versions, for the error page's version list and the releases list.
import parse from 'semver/functions/parse.js'
import compareSemver from 'semver/functions/compare.js'

const natural = new Intl.Collator('en', { numeric: true, sensitivity: 'base' })

/**
 * Older first: semantic versioning where both versions parse (a leading `v` allowed; 2.0.0-beta.1
 * before 2.0.0), else natural order, comparing the numbers in them (1.2 before 1.10, build 9
 * before build 10).
 */
export function compareVersions(a: string, b: string): number {
  const left = parse(a, { loose: true })
  const right = parse(b, { loose: true })
  if (left && right) return compareSemver(left, right) || natural.compare(a, b)
  return natural.compare(a, b)
}
