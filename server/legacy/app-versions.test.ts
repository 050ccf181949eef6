import { describe, expect, it } from 'vitest'
import { Failure } from '../failures.ts'
import { parseAppVersions, versionMatches } from './app-versions.ts'

const matching = (text: string, versions: string[]) => versions.filter((v) => versionMatches(parseAppVersions(text), v))

describe('app_versions', () => {
  it('reads each operator, the longer ones first', () => {
    expect(parseAppVersions('eq1.0.0,ne2,gt3,gte4,lt5,lte6')).toEqual([
      { operator: 'eq', version: '1.0.0' },
      { operator: 'ne', version: '2' },
      { operator: 'gt', version: '3' },
      { operator: 'gte', version: '4' },
      { operator: 'lt', version: '5' },
      { operator: 'lte', version: '6' },
    ])
  })

  it('compares as versions, not as text', () => {
    expect(matching('gte2.10.0', ['2.9.9', '2.10.0', '10.0.0', '2.10.1', '1.99.0'])).toEqual(['2.10.0', '10.0.0', '2.10.1'])
    expect(matching('lt2.10.0', ['2.9.9', '2.10.0', '10.0.0'])).toEqual(['2.9.9'])
    expect(matching('gt2.4.0-beta.1', ['2.4.0-beta.1', '2.4.0-beta.2', '2.4.0'])).toEqual(['2.4.0-beta.2', '2.4.0'])
    expect(matching('lte9', ['build 9', '10', '8'])).toEqual(['8'])
  })

  it('takes eq as a list and the other conditions as a range', () => {
    expect(matching('eq1.0.0,eq1.2.0', ['1.0.0', '1.1.0', '1.2.0'])).toEqual(['1.0.0', '1.2.0'])
    expect(matching('gte2.0.0,lt3.0.0,ne2.5.0', ['1.9.0', '2.0.0', '2.5.0', '2.10.0', '3.0.0'])).toEqual(['2.0.0', '2.10.0'])
  })

  it('refuses a condition without an operator or a version, naming app_versions', () => {
    for (const text of ['2.0.0', 'gte', 'about1.0', ',', 'eq1,x2']) {
      expect(() => parseAppVersions(text), text).toThrow(Failure)
      expect(() => parseAppVersions(text), text).toThrow(/^app_versions: /)
    }
  })
})
