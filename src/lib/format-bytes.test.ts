import { describe, expect, it } from 'vitest'
import { formatBytes } from './format-bytes.ts'

describe('formatBytes', () => {
  it('says sizes in the unit people read them in', () => {
    expect(formatBytes(0)).toBe('0 B')
    expect(formatBytes(512)).toBe('512 B')
    expect(formatBytes(3.4 * 1024)).toBe('3.4 KB')
    expect(formatBytes(12 * 1024 ** 2)).toBe('12.0 MB')
    expect(formatBytes(1377288719)).toBe('1.3 GB')
    expect(formatBytes(2.5 * 1024 ** 4)).toBe('2.5 TB')
    expect(formatBytes(3 * 1024 ** 5)).toBe('3072.0 TB')
  })
})
