// The one order of app versions: the errors list's version ranges, the error page's version list
// and the releases list.
import compareBuild from 'semver/functions/compare-build.js'
import parse from 'semver/functions/parse.js'

const naturalOrder = new Intl.Collator('en', { numeric: true, sensitivity: 'base' })

/**
 * Two app versions as versions, older first: by semver where both parse (1.2.0 before 1.10.0,
 * 2.4.0-beta.1 before 2.4.0, a leading "v" allowed), else in natural order, comparing the numbers
 * in them (build 9 before build 10). Equal versions written differently fall back to the text.
 */
export function compareVersions(a: string, b: string): number {
  const left = parse(a, { loose: true })
  const right = parse(b, { loose: true })
  return (left && right ? compareBuild(left, right) : 0) || naturalOrder.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0)
}

/** App versions oldest first, newest last (compareVersions). */
export function sortVersions(versions: readonly string[]): string[] {
  return [...versions].sort(compareVersions)
}
