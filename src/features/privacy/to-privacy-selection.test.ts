import { describe, expect, it } from 'vitest'
import { describeSelection, otherConditions, personSearch, personValue, withPersonValue } from './to-privacy-selection.ts'

describe('privacy selections', () => {
  it('sets, reads and clears a person field without touching the other conditions', () => {
    const base = { 'app.release_stage': [{ type: 'eq' as const, value: 'production' }] }
    const withId = withPersonValue(base, 'user.id', ' alice ')
    expect(withId).toEqual({ ...base, 'user.id': [{ type: 'eq', value: 'alice' }] })
    expect(personValue(withId, 'user.id')).toBe('alice')
    expect(otherConditions(withId)).toEqual([{ fieldId: 'app.release_stage', condition: { type: 'eq', value: 'production' } }])
    expect(withPersonValue(withId, 'user.id', '  ')).toEqual(base)
  })

  it('reads a selection as its chips do', () => {
    expect(
      describeSelection({
        'user.email': [{ type: 'eq', value: 'alice@' }],
        'app.release_stage': [{ type: 'ne', value: 'staging' }],
      }),
    ).toBe('User email contains alice@ · Release stage is not staging')
    expect(describeSelection({}, true)).toBe('Every event')
  })

  it('prefills a person by id, else by their whole email address', () => {
    expect(personSearch({ id: 'u1', email: 'a@example.com' })).toEqual(['user.id:eq:u1'])
    expect(personSearch({ id: null, email: 'a@example.com' })).toEqual(['user.email:exact:a@example.com'])
    expect(personSearch({})).toBeNull()
  })
})
