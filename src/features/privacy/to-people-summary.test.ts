import { describe, expect, it } from 'vitest'
import type { PrivacyPreview } from '../../../contract/privacy.ts'
import { canNarrowTo, countPeople, isOnlyPerson, listPeople, manyPeopleWarning, onlyPerson } from './to-people-summary.ts'

const person = (id: string | null, email: string | null, name: string | null = null) => ({ user: { id, email, name }, events: 1 })
const people = (items: PrivacyPreview['people']['items'], total = items.length, capped = false): PrivacyPreview['people'] => ({
  total,
  capped,
  items,
  events_without_user: 0,
})

describe('the people a selection matches', () => {
  it('names each by email, else user id, else name, and says how many more', () => {
    const three = people([person('u1', 'ann@example.com'), person('u2', null), person(null, null, 'Anna')])
    expect(countPeople(three)).toBe('3 different people')
    expect(listPeople(three)).toBe('ann@example.com, u2 and Anna')
    expect(listPeople(people([person('u1', 'ann@example.com'), person('u2', 'jo@example.com')], 25))).toBe('ann@example.com, jo@example.com and 23 more')
    expect(countPeople(people([person('u1', 'a@x')], 1001, true))).toBe('at least 1,001 different people')
    expect(countPeople(people([person('u1', 'a@x')]))).toBe('1 person')
  })

  it('warns a confirmation only when more than one person matches', () => {
    expect(manyPeopleWarning(people([person('u1', 'ann@example.com')]))).toBeNull()
    expect(manyPeopleWarning(people([]))).toBeNull()
    expect(manyPeopleWarning(people([person('u1', 'ann@example.com'), person('u2', 'joanna@example.com')]))).toBe(
      'This matches 2 different people: ann@example.com and joanna@example.com.',
    )
  })

  it('narrows a selection to one user id, keeping the other conditions', () => {
    const filters = {
      'user.email': [{ type: 'eq' as const, value: 'ann' }],
      'user.name': [{ type: 'eq' as const, value: 'An' }],
      'app.release_stage': [{ type: 'eq' as const, value: 'production' }],
    }
    expect(onlyPerson(filters, { id: 'u1', email: 'ann@example.com', name: null })).toEqual({
      'app.release_stage': [{ type: 'eq', value: 'production' }],
      'user.id': [{ type: 'eq', value: 'u1' }],
    })
    expect(isOnlyPerson(onlyPerson(filters, { id: 'u1', email: null, name: null }), { id: 'u1', email: null, name: null })).toBe(true)
  })

  it('narrows to a person without a user id by their whole email address, and not at all by a name alone', () => {
    const filters = { 'user.email': [{ type: 'eq' as const, value: 'ann' }] }
    const ann = { id: null, email: 'ann@example.com', name: 'Ann' }
    expect(onlyPerson(filters, ann)).toEqual({ 'user.email': [{ type: 'exact', value: 'ann@example.com' }] })
    expect(isOnlyPerson(filters, ann)).toBe(false)
    expect(isOnlyPerson(onlyPerson(filters, ann), ann)).toBe(true)
    expect(canNarrowTo({ id: null, email: null, name: 'Ann' })).toBe(false)
    expect(onlyPerson(filters, { id: null, email: null, name: 'Ann' })).toBe(filters)
  })
})
