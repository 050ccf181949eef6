import { describe, expect, it } from 'vitest'
import { compareVersions, sortVersions } from './versions.ts'

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

describe('sortVersions', () => {
  it('orders semantic versions as versions, whatever order they arrived in', () => {
    expect(sortVersions(['2.4.1', '2.4.0'])).toEqual(['2.4.0', '2.4.1'])
    expect(sortVersions(['1.10.0', '1.2.0', '1.9.3'])).toEqual(['1.2.0', '1.9.3', '1.10.0'])
    expect(sortVersions(['2.4.0', '2.4.0-rc.1', '2.4.0-beta.10', '2.4.0-beta.2'])).toEqual(['2.4.0-beta.2', '2.4.0-beta.10', '2.4.0-rc.1', '2.4.0'])
    expect(sortVersions(['v2.0.0', '1.5.0', 'v1.10.0'])).toEqual(['1.5.0', 'v1.10.0', 'v2.0.0'])
    expect(sortVersions(['1.0.0+build.2', '1.0.0+build.10', '1.0.0'])).toEqual(['1.0.0', '1.0.0+build.2', '1.0.0+build.10'])
  })

  it('orders versions that are not semantic in natural order, comparing the numbers in them', () => {
    expect(sortVersions(['1.10', '1.2', '1.9'])).toEqual(['1.2', '1.9', '1.10'])
    expect(sortVersions(['build 10', 'build 9', 'Build 11'])).toEqual(['build 9', 'build 10', 'Build 11'])
    expect(sortVersions(['2024.10.01-hotfix', '2024.9.30'])).toEqual(['2024.9.30', '2024.10.01-hotfix'])
  })

  it('is a total order: each version once, nothing dropped, the input left as it was', () => {
    const input = ['1.0.0', 'v1.0.0', '1.0.0', '1.0']
    const sorted = sortVersions(input)
    expect(sorted).toHaveLength(4)
    expect(input).toEqual(['1.0.0', 'v1.0.0', '1.0.0', '1.0'])
    expect(compareVersions('1.0.0', 'v1.0.0')).not.toBe(0)
    expect(compareVersions('1.0.0', '1.0.0')).toBe(0)
  })
})
