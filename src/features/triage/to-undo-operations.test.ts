import { describe, expect, it } from 'vitest'
import type { ErrorGroup } from '../../../contract/errors.ts'
import { toUndoOperations } from './to-undo-operations.ts'

const error = (id: string, overrides: Partial<ErrorGroup> = {}) =>
  ({ id, status: 'open', assigned_collaborator_id: null, ...overrides }) as ErrorGroup
const before = (...errors: ErrorGroup[]) => new Map(errors.map((e) => [e.id, e]))

describe('toUndoOperations', () => {
  it('reverts a status change only on the errors whose status it changed', () => {
    expect(
      toUndoOperations({ operation: 'fix' }, before(error('a'), error('b', { status: 'fixed' }), error('c', { status: 'ignored' })), ['a', 'b', 'c']),
    ).toEqual([{ errorIds: ['a', 'c'], operation: { operation: 'revert_status' } }])
    expect(toUndoOperations({ operation: 'fix' }, before(error('b', { status: 'fixed' })), ['b'])).toEqual([])
  })

  it('reverts a re-snooze (its rule was replaced) and leaves unknown errors alone', () => {
    const snooze = { operation: 'snooze', reopen_rules: { reopen_if: 'occurs_after', seconds: 60 } } as const
    expect(toUndoOperations(snooze, before(error('a', { status: 'snoozed' })), ['a', 'unknown'])).toEqual([
      { errorIds: ['a'], operation: { operation: 'revert_status' } },
    ])
  })

  it('assigns back, one request per previous assignee', () => {
    const assign = { operation: 'assign', assigned_collaborator_id: 'u3' } as const
    expect(
      toUndoOperations(
        assign,
        before(error('a', { assigned_collaborator_id: 'u1' }), error('b'), error('c', { assigned_collaborator_id: 'u1' }), error('d', { assigned_collaborator_id: 'u3' })),
        ['a', 'b', 'c', 'd'],
      ),
    ).toEqual([
      { errorIds: ['a', 'c'], operation: { operation: 'assign', assigned_collaborator_id: 'u1' } },
      { errorIds: ['b'], operation: { operation: 'assign', assigned_collaborator_id: null } },
    ])
  })

  it('offers nothing for other operations', () => {
    expect(toUndoOperations({ operation: 'override_severity', severity: 'info' }, before(error('a')), ['a'])).toEqual([])
  })
})

describe('toUndoOperations: discard and issue links', () => {
  it('undiscards what a discard changed, and discards again what an undiscard changed', () => {
    const errors = before(error('a', { discarded: false }), error('b', { discarded: true }))
    expect(toUndoOperations({ operation: 'discard' }, errors, ['a', 'b'])).toEqual([{ errorIds: ['a'], operation: { operation: 'undiscard' } }])
    expect(toUndoOperations({ operation: 'undiscard' }, errors, ['a', 'b'])).toEqual([{ errorIds: ['b'], operation: { operation: 'discard' } }])
  })

  it('links back the issue an error had, or unlinks the one it did not have', () => {
    const errors = before(
      error('a', { linked_issues: [] }),
      error('b', { linked_issues: [{ type: 'url', url: 'https://tracker.example/1' }] }),
    )
    expect(toUndoOperations({ operation: 'link_issue', issue_url: 'https://tracker.example/2' }, errors, ['a', 'b'])).toEqual([
      { errorIds: ['a'], operation: { operation: 'unlink_issue' } },
      { errorIds: ['b'], operation: { operation: 'link_issue', issue_url: 'https://tracker.example/1' } },
    ])
    expect(toUndoOperations({ operation: 'unlink_issue' }, errors, ['a', 'b'])).toEqual([
      { errorIds: ['b'], operation: { operation: 'link_issue', issue_url: 'https://tracker.example/1' } },
    ])
  })
})
