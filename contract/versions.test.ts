import { describe, expect, it } from 'vitest'
import { compareVersions } from './versions.ts'

const sorted = (versions: string[]) => [...versions].sort(compareVersions)

describe('compareVersions', () => {
  it('orders semantic versions by their numbers, a pre-release before its release', () => {
    expect(sorted(['1.10.0', '2.0.0', '1.2.0', '2.0.0-beta.2', '2.0.0-beta.10', 'v1.9.1'])).toEqual([
      '1.2.0',
      'v1.9.1',
      '1.10.0',
      '2.0.0-beta.2',
      '2.0.0-beta.10',
      '2.0.0',
    ])
  })

  it('orders other versions naturally, comparing the numbers in them', () => {
    expect(sorted(['build 10', 'build 9', '2024.11', '2024.2', 'r100', 'r20'])).toEqual(['2024.2', '2024.11', 'build 9', 'build 10', 'r20', 'r100'])
  })
})
