import { describe, expect, it } from 'vitest'
import { toNotifierSnippet } from './to-notifier-snippet.ts'

describe('toNotifierSnippet', () => {
  it('points both endpoints at the given origin with the API key', () => {
    const snippet = toNotifierSnippet('abc123', 'https://errata.example.com')
    expect(snippet).toContain("apiKey: 'abc123'")
    expect(snippet).toContain("notify: 'https://errata.example.com/notify'")
    expect(snippet).toContain("sessions: 'https://errata.example.com/sessions'")
    expect(snippet).toContain("import Bugsnag from '@bugsnag/js'")
  })

  it('escapes quotes so the snippet stays valid JavaScript', () => {
    expect(toNotifierSnippet("a'b", 'http://x')).toContain("apiKey: 'a\\'b'")
  })
})
