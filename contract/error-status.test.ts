import { describe, expect, it } from 'vitest'
import { changesStatus, isStatusOperation, statusAfter, STATUS_OPERATIONS } from './error-status.ts'
import { ERROR_STATUSES, snoozeBookkeeping, storedReopenRulesSchema } from './errors.ts'

describe('the status operation rule', () => {
  it('sets one status per operation and is a change from every other status', () => {
    for (const [operation, rule] of Object.entries(STATUS_OPERATIONS)) {
      for (const from of ERROR_STATUSES) {
        const expected = from !== rule.to || operation === 'snooze'
        expect(changesStatus(from, operation as keyof typeof STATUS_OPERATIONS), `${operation} from ${from}`).toBe(expected)
      }
    }
    expect(statusAfter('fix')).toBe('fixed')
    expect(statusAfter('open')).toBe('open')
  })

  it('tells status operations from the others', () => {
    expect(isStatusOperation({ operation: 'ignore' })).toBe(true)
    expect(isStatusOperation({ operation: 'assign', assigned_collaborator_id: null })).toBe(false)
    expect(isStatusOperation({ operation: 'revert_status' })).toBe(false)
  })
})

describe('snooze bookkeeping', () => {
  const now = new Date('2026-01-02T03:04:05.000Z')
  const counters = { events: 40, users: 7 }

  it('stores what each rule counts from, in the stored schema', () => {
    const cases = [
      [{ reopen_if: 'n_additional_occurrences', additional_occurrences: 5 }, { events_at_snooze: 40 }],
      [{ reopen_if: 'n_additional_users', additional_users: 2 }, { users_at_snooze: 7 }],
      [{ reopen_if: 'n_occurrences_in_m_hours', occurrences: 10, hours: 2 }, {}],
      [{ reopen_if: 'occurs_after', seconds: 3600 }, { reopen_after: '2026-01-02T04:04:05.000Z' }],
    ] as const
    for (const [rules, extra] of cases) {
      const stored = snoozeBookkeeping(rules, counters, now)
      expect(stored).toEqual({ ...rules, snoozed_at: now.toISOString(), ...extra })
      expect(storedReopenRulesSchema.parse(stored)).toEqual(stored)
    }
  })

  it('refuses stored rules without their bookkeeping', () => {
    expect(storedReopenRulesSchema.safeParse({ reopen_if: 'n_additional_occurrences', additional_occurrences: 5 }).success).toBe(false)
  })
})
