import { describe, expect, it } from 'vitest'
import { applyOperation } from '../../api/errors.ts'
import { errorGroup } from '../../test/fixtures.ts'
import { describeReopenRules, formatDuration } from './snooze-text.ts'

describe('describeReopenRules', () => {
  const snoozed_at = '2026-11-22T10:00:00.000Z'

  it('counts down the events left from the bookkeeping stored at snooze time', () => {
    const rules = { reopen_if: 'n_additional_occurrences', additional_occurrences: 5, events_at_snooze: 10, snoozed_at } as const
    expect(describeReopenRules(rules, 12)).toBe('until 3 more events')
    expect(describeReopenRules(rules, 14)).toBe('until 1 more event')
    expect(describeReopenRules(rules, 99)).toBe('until 0 more events')
    expect(describeReopenRules(rules)).toBe('until 5 more events')
  })

  it('describes users, a rate and a time period', () => {
    expect(describeReopenRules({ reopen_if: 'n_additional_users', additional_users: 2, users_at_snooze: 4, snoozed_at })).toBe(
      'until 2 more users',
    )
    expect(describeReopenRules({ reopen_if: 'n_occurrences_in_m_hours', occurrences: 1, hours: 1, snoozed_at })).toBe('until 1 event in 1 hour')
    expect(describeReopenRules({ reopen_if: 'n_occurrences_in_m_hours', occurrences: 1000, hours: 24, snoozed_at })).toBe(
      'until 1,000 events in 24 hours',
    )
    expect(describeReopenRules({ reopen_if: 'occurs_after', seconds: 60, snoozed_at, reopen_after: '2026-11-22T14:30:00.000Z' })).toMatch(
      /^until Nov 2[23], \d\d:30$/,
    )
    expect(describeReopenRules(null)).toBeNull()
  })

  it('formats durations in the largest even unit', () => {
    expect(formatDuration(5_400)).toBe('90 minutes')
    expect(formatDuration(7 * 86_400)).toBe('7 days')
    expect(formatDuration(3_600)).toBe('1 hour')
    expect(formatDuration(61)).toBe('61 seconds')
  })
})

describe('applyOperation (the optimistic state)', () => {
  const now = new Date('2026-11-22T10:00:00.000Z')

  it('changes status and clears the snooze rule for fix, ignore and open', () => {
    const snoozed = errorGroup({
      status: 'snoozed',
      reopen_rules: { reopen_if: 'occurs_after', seconds: 60, snoozed_at: now.toISOString(), reopen_after: '2026-11-22T10:01:00.000Z' },
    })
    expect(applyOperation(snoozed, { operation: 'fix' }, now)).toMatchObject({ status: 'fixed', reopen_rules: null })
    expect(applyOperation(snoozed, { operation: 'ignore' }, now)).toMatchObject({ status: 'ignored', reopen_rules: null })
    expect(applyOperation(snoozed, { operation: 'open' }, now)).toMatchObject({ status: 'open', reopen_rules: null })
  })

  it('stores the same snooze bookkeeping as the server', () => {
    const error = errorGroup({ events: 40 })
    expect(
      applyOperation(error, { operation: 'snooze', reopen_rules: { reopen_if: 'n_additional_occurrences', additional_occurrences: 3 } }, now)
        .reopen_rules,
    ).toEqual({ reopen_if: 'n_additional_occurrences', additional_occurrences: 3, events_at_snooze: 40, snoozed_at: now.toISOString() })
    expect(
      applyOperation(error, { operation: 'snooze', reopen_rules: { reopen_if: 'occurs_after', seconds: 3_600 } }, now).reopen_rules,
    ).toEqual({ reopen_if: 'occurs_after', seconds: 3_600, snoozed_at: now.toISOString(), reopen_after: '2026-11-22T11:00:00.000Z' })
  })

  it('assigns, unassigns ("" too) and overrides the severity', () => {
    const error = errorGroup()
    expect(applyOperation(error, { operation: 'assign', assigned_collaborator_id: 'u2' }).assigned_collaborator_id).toBe('u2')
    expect(applyOperation(error, { operation: 'assign', assigned_collaborator_id: '' }).assigned_collaborator_id).toBeNull()
    expect(applyOperation(error, { operation: 'override_severity', severity: 'info' })).toMatchObject({
      severity: 'info',
      severity_override: 'info',
    })
  })
})
