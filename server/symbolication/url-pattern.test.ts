import { describe, expect, it } from 'vitest'
import { fileVariants, matchTier, variantStrings, wildcardMatch } from './url-pattern.ts'

describe('wildcardMatch (spec rule 2)', () => {
  it.each([
    ['https://cdn.example.com/app.min.js', 'https://cdn.example.com/app.min.js', true],
    ['https://cdn.example.com/app.min.js', 'https://cdn.example.com/app.min.jsx', false],
    ['https://cdn.example.com/app.min.js', 'http://cdn.example.com/app.min.js', false],
    // * matches zero or more characters, anywhere, several times.
    ['https://cdn.example.com/*.js', 'https://cdn.example.com/app.min.js', true],
    ['https://cdn.example.com/*.js', 'https://cdn.example.com/.js', true],
    ['https://cdn.example.com/*.js', 'https://cdn.example.com/js/deep/app.js', true],
    ['https://cdn.example.com/*.js', 'https://cdn.example.com/app.min.css', false],
    ['*://cdn.example.com/app.*.js', 'https://cdn.example.com/app.8a1b3c.js', true],
    ['*://cdn.example.com/app.*.js', 'http://cdn.example.com/app..js', true],
    ['*://cdn.example.com/app.*.js', 'https://cdn.example.com/vendor.8a1b3c.js', false],
    ['https://*.example.com/*/app.js', 'https://eu.example.com/v2/app.js', true],
    ['https://*.example.com/*/app.js', 'https://eu.example.com/app.js', false],
    ['*', 'anything at all', true],
    ['**', '', true],
    ['a*b*c', 'abc', true],
    ['a*b*c', 'axxbyyc', true],
    ['a*b*c', 'axxbyy', false],
    // Other characters are literal, regular-expression characters included.
    ['https://cdn.example.com/app.min.js?v=1', 'https://cdn.example.com/app.min.js?v=1', true],
    ['https://cdn.example.com/app.min.js', 'https://cdn.example.comXapp.min.js', false],
    ['https://cdn.example.com/(a|b).js', 'https://cdn.example.com/a.js', false],
  ])('%s ~ %s → %s', (pattern, text, expected) => {
    expect(wildcardMatch(pattern, text)).toBe(expected)
  })

  it('stays fast on patterns that make backtracking regular expressions explode', () => {
    const pattern = `${'*a'.repeat(30)}*b`
    const text = 'a'.repeat(20_000)
    const started = performance.now()
    expect(wildcardMatch(pattern, text)).toBe(false)
    expect(performance.now() - started).toBeLessThan(2_000)
  })
})

describe('matchTier', () => {
  it('prefers the file as sent, then without query string, fragment or file://, then a relative path ending an absolute one', () => {
    const url = fileVariants('https://cdn.example.com/app.min.js?v=12#x', 'url')
    expect(matchTier('https://cdn.example.com/app.min.js?v=12#x', url)).toBe(0)
    expect(matchTier('https://cdn.example.com/app.min.js*', url)).toBe(0)
    expect(matchTier('https://cdn.example.com/app.min.js', url)).toBe(1)
    expect(matchTier('app.min.js', url)).toBeNull()

    const esm = fileVariants('file:///srv/my%20app/dist/app.min.js', 'path')
    expect(matchTier('/srv/my app/dist/app.min.js', esm)).toBe(1)
    expect(matchTier('dist/app.min.js', esm)).toBe(2)
    expect(matchTier('my app/dist/*.js', esm)).toBe(2)
    // Only at a "/": "ist/app.min.js" does not name this file.
    expect(matchTier('ist/app.min.js', esm)).toBeNull()
    // An absolute upload path must match the whole path.
    expect(matchTier('/dist/app.min.js', esm)).toBeNull()

    const cjs = fileVariants('dist/app.min.js', 'path')
    expect(matchTier('dist/app.min.js', cjs)).toBe(0)
    expect(matchTier('app.min.js', cjs)).toBeNull()
  })

  it('lists every exact form for the database query', () => {
    expect(variantStrings(fileVariants('/srv/app/dist/a.js', 'path'))).toEqual(['/srv/app/dist/a.js', 'srv/app/dist/a.js', 'app/dist/a.js', 'dist/a.js', 'a.js'])
    expect(variantStrings(fileVariants('https://cdn.example.com/a.js?v=1', 'url'))).toEqual(['https://cdn.example.com/a.js?v=1', 'https://cdn.example.com/a.js'])
  })
})
