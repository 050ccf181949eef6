// The router's search serializer: TanStack's default, except that an array of plain strings
// becomes a repeated parameter (`?f=a&f=b`, `f=` when empty) instead of a JSON array, and
// `: , / @` stay unescaped, so filter links stay readable. Parsing is TanStack's default:
// repeated keys already arrive as arrays.
import { defaultParseSearch, defaultStringifySearch } from '@tanstack/react-router'

export const parseSearch = defaultParseSearch

// Strings the default parser would read as JSON (numbers, true, quoted…) keep the JSON form.
const JSON_LIKE = /^(?:\s|["[{\d-]|fa|nu|tr)/

const isPlainStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string' && !JSON_LIKE.test(item))

const encode = (text: string) =>
  encodeURIComponent(text).replace(/%(3A|2C|2F|40)/gi, (escaped) => decodeURIComponent(escaped))

export function stringifySearch(search: Record<string, unknown>): string {
  const plain: Record<string, unknown> = {}
  const repeated: string[] = []
  for (const [key, value] of Object.entries(search)) {
    if (isPlainStringArray(value)) {
      if (value.length === 0) repeated.push(`${encode(key)}=`)
      for (const item of value) repeated.push(`${encode(key)}=${encode(item)}`)
    } else plain[key] = value
  }
  const rest = defaultStringifySearch(plain).replace(/^\?/, '')
  const query = [rest, ...repeated].filter(Boolean).join('&')
  return query ? `?${query}` : ''
}
