import { describe, expect, it } from 'vitest'
import { slugify, slugWithSuffix } from './slug.ts'

describe('slugify', () => {
  it('lowercases and joins words with single hyphens', () => {
    expect(slugify('Acme Corp')).toBe('acme-corp')
    expect(slugify('  Hello,   World!! ')).toBe('hello-world')
    expect(slugify('API v2 / Web_App')).toBe('api-v2-web-app')
  })

  it('strips accents and drops characters it cannot transliterate', () => {
    expect(slugify('Café Crème')).toBe('cafe-creme')
    expect(slugify('Team 日本')).toBe('team')
  })

  it('falls back to "untitled" when nothing is left', () => {
    expect(slugify('!!!')).toBe('untitled')
    expect(slugify('日本語')).toBe('untitled')
  })

  it('keeps slugs at most 60 characters', () => {
    expect(slugify('a'.repeat(100))).toHaveLength(60)
  })

  it('adds a 6-hex-character suffix for taken slugs', () => {
    const a = slugWithSuffix('Acme Corp')
    expect(a).toMatch(/^acme-corp-[0-9a-f]{6}$/)
    expect(slugWithSuffix('Acme Corp')).not.toBe(a)
  })
})
