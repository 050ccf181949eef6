import { describe, expect, it } from 'vitest'
import type { Filters } from '../../../contract/filters.ts'
import { parseSearch, stringifySearch } from '../../lib/search-params.ts'
import {
  addCondition,
  DEFAULT_FILTERS,
  describeOperator,
  eventScopedFilters,
  filterSearchSchema,
  fromFilterSearch,
  parseFilterEntry,
  removeCondition,
  timeRangeOf,
  timeWindowOf,
  toFilterSearch,
  withTimeRange,
} from './to-filter-search.ts'

const sample: Filters = {
  'error.status': [{ type: 'eq', value: 'open' }, { type: 'eq', value: 'snoozed' }],
  'app.release_stage': [{ type: 'ne', value: 'staging' }],
  'user.email': [{ type: 'empty', value: 'false' }],
  'event.message': [{ type: 'eq', value: 'a: b, c/d @e & f=g+h %20 "q" 123' }],
  'event.since': [{ type: 'eq', value: '2026-11-20T10:00:00.000Z' }],
}

/** What the router does with a search object: to a URL and back. */
const throughUrl = (search: Record<string, unknown>): Record<string, unknown> => parseSearch(stringifySearch(search))

describe('filters in the URL', () => {
  it('writes field:type:value entries and reads them back exactly, through the router serializer', () => {
    const entries = toFilterSearch(sample)
    expect(entries[0]).toBe('error.status:eq:open')
    expect(entries).toContain('app.release_stage:ne:staging')
    const url = stringifySearch({ sort: 'events', f: entries })
    expect(url).toContain('f=error.status:eq:open&f=error.status:eq:snoozed')
    const search: Record<string, unknown> = parseSearch(url)
    const parsed = filterSearchSchema.parse(search.f)
    expect(fromFilterSearch(parsed)).toEqual(sample)
    expect(search.sort).toBe('events')
  })

  it('keeps one filter, no filters (f=) and the default view (no f) apart', () => {
    const one = throughUrl({ f: ['error.status:eq:fixed'] })
    expect(fromFilterSearch(filterSearchSchema.parse(one.f))).toEqual({ 'error.status': [{ type: 'eq', value: 'fixed' }] })
    const none = throughUrl({ f: [] })
    expect(stringifySearch({ f: [] })).toBe('?f=')
    expect(fromFilterSearch(filterSearchSchema.parse(none.f))).toEqual({})
    const absent = throughUrl({})
    expect(fromFilterSearch(filterSearchSchema.parse(absent.f))).toEqual(DEFAULT_FILTERS)
  })

  it('opens the default view when a link holds only malformed filters, not every error', () => {
    expect(filterSearchSchema.parse(['bogus:zz:1'])).toBeUndefined()
    expect(filterSearchSchema.parse('bogus:zz:1')).toBeUndefined()
    expect(fromFilterSearch(filterSearchSchema.parse(['bogus:zz:1', 'error.status:eq:sleeping']))).toEqual(DEFAULT_FILTERS)
    // f= alone still means "no filters".
    expect(filterSearchSchema.parse('')).toEqual([])
  })

  it('drops malformed entries without failing', () => {
    const parsed = filterSearchSchema.parse([
      'error.status:eq:open',
      'nope.field:eq:x',
      'error.status:eq:sleeping',
      'error.status:maybe:open',
      'app.version',
      'event.since:eq:yesterday',
      'user.id:eq:',
      42,
      'app.version:eq:1.2:3',
    ])
    expect(parsed).toEqual(['error.status:eq:open', 'app.version:eq:1.2:3'])
    expect(filterSearchSchema.parse({ not: 'a list' })).toBeUndefined()
    expect(parseFilterEntry('app.version:eq:1.2:3')).toEqual({ fieldId: 'app.version', condition: { type: 'eq', value: '1.2:3' } })
  })

  it('adds conditions (OR within a field), ignores duplicates, and removes them', () => {
    let filters = addCondition({}, 'app.version', { type: 'eq', value: '1.0' })
    filters = addCondition(filters, 'app.version', { type: 'eq', value: '2.0' })
    expect(addCondition(filters, 'app.version', { type: 'eq', value: '2.0' })).toBe(filters)
    expect(filters['app.version']).toHaveLength(2)
    // "is empty" replaces the field's other conditions; a value replaces "is empty".
    const empty = addCondition(filters, 'app.version', { type: 'empty', value: 'true' })
    expect(empty['app.version']).toEqual([{ type: 'empty', value: 'true' }])
    expect(addCondition(empty, 'app.version', { type: 'eq', value: '3.0' })['app.version']).toEqual([{ type: 'eq', value: '3.0' }])
    filters = removeCondition(filters, 'app.version', { type: 'eq', value: '1.0' })
    expect(filters).toEqual({ 'app.version': [{ type: 'eq', value: '2.0' }] })
    expect(removeCondition(filters, 'app.version', { type: 'eq', value: '2.0' })).toEqual({})
  })

  it('reads and writes the time range as event.since / event.before', () => {
    expect(timeRangeOf({})).toEqual({ kind: 'all' })
    const week = withTimeRange(DEFAULT_FILTERS, { kind: 'relative', since: '7d' })
    expect(week).toEqual({ ...DEFAULT_FILTERS, 'event.since': [{ type: 'eq', value: '7d' }] })
    expect(timeRangeOf(week)).toEqual({ kind: 'relative', since: '7d' })
    const brushed = withTimeRange(week, { kind: 'absolute', since: '2026-11-20T10:00:00.000Z', before: '2026-11-20T16:00:00.000Z' })
    expect(timeRangeOf(brushed)).toEqual({ kind: 'absolute', since: '2026-11-20T10:00:00.000Z', before: '2026-11-20T16:00:00.000Z' })
    expect(timeWindowOf(timeRangeOf(brushed), Date.parse('2026-12-01T00:00:00Z'), 1)).toEqual({
      from: Date.parse('2026-11-20T10:00:00.000Z'),
      to: Date.parse('2026-11-20T16:00:00.000Z'),
    })
    expect(timeWindowOf({ kind: 'relative', since: '1h' }, 10_000_000, 1)).toEqual({ from: 10_000_000 - 3_600_000, to: 10_000_000 })
    expect(withTimeRange(brushed, { kind: 'all' })).toEqual(DEFAULT_FILTERS)
  })
})

describe('event-scoped filters', () => {
  it('keeps the time range and event fields, drops what tests the error group', () => {
    expect(
      eventScopedFilters({
        ...sample,
        'error.assigned_to': [{ type: 'eq', value: 'me' }],
        'error.severity': [{ type: 'eq', value: 'error' }],
        'version.seen_in': [{ type: 'eq', value: '1.2.3' }],
      }),
    ).toEqual({
      'app.release_stage': sample['app.release_stage'],
      'user.email': sample['user.email'],
      'event.message': sample['event.message'],
      'event.since': sample['event.since'],
    })
  })
})

describe('how conditions read', () => {
  it('says "contains" / "does not contain" on substring fields, "is" / "is not" on exact ones', () => {
    expect(describeOperator({ type: 'eq', value: 'staging' })).toBe('is')
    expect(describeOperator({ type: 'ne', value: 'staging' }, 'exact')).toBe('is not')
    expect(describeOperator({ type: 'eq', value: 'timeout' }, 'substring')).toBe('contains')
    expect(describeOperator({ type: 'ne', value: 'timeout' }, 'substring')).toBe('does not contain')
    expect(describeOperator({ type: 'empty', value: 'true' }, 'substring')).toBe('is empty')
    expect(describeOperator({ type: 'empty', value: 'false' }, 'substring')).toBe('is present')
  })
})
