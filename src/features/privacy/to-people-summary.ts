// The people a privacy selection matches, as the page and the deletion's confirmation say them.
import type { Filters } from '../../../contract/filters.ts'
import type { PrivacyPerson, PrivacyPreview } from '../../../contract/privacy.ts'
import { formatCount } from '../../lib/relative-time.ts'

/** How a person reads: their email, else their user id, else their name. */
export const personLabel = ({ user }: PrivacyPerson): string => user.email ?? user.id ?? user.name ?? 'someone'

/** "3 different people", "at least 1,001 different people", "1 person". */
export function countPeople(people: PrivacyPreview['people']): string {
  if (people.total === 1 && !people.capped) return '1 person'
  return `${people.capped ? 'at least ' : ''}${formatCount(people.total)} different people`
}

/** "a, b and c"; past `shown` names, "a, b and 18 more". */
export function listPeople(people: PrivacyPreview['people'], shown = people.items.length): string {
  const names = people.items.slice(0, shown).map(personLabel)
  const more = people.total - names.length
  if (more > 0) return `${names.join(', ')} and ${people.capped ? 'at least ' : ''}${formatCount(more)} more`
  if (names.length <= 1) return names.join('')
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`
}

/** The confirmation's warning when a selection catches more than one person; null otherwise. */
export function manyPeopleWarning(people: PrivacyPreview['people']): string | null {
  if (people.total <= 1 && !people.capped) return null
  return `This matches ${countPeople(people)}: ${listPeople(people)}.`
}

/**
 * The selection narrowed to one person: by their user id, else by their whole email address
 * (`exact`: the email field's `eq` matches a part). The person fields go; other conditions stay.
 */
export function onlyPerson(filters: Filters, user: PrivacyPerson['user']): Filters {
  const { 'user.id': _id, 'user.email': _email, 'user.name': _name, ...rest } = filters
  if (user.id) return { ...rest, 'user.id': [{ type: 'eq', value: user.id }] }
  if (user.email) return { ...rest, 'user.email': [{ type: 'exact', value: user.email }] }
  return filters
}

/** Whether "Only this person" can narrow to them: they have a user id or an email address. */
export const canNarrowTo = (user: PrivacyPerson['user']): boolean => Boolean(user.id || user.email)

/** Whether the selection is already exactly this person (by user id, or by whole email when they have no id). */
export function isOnlyPerson(filters: Filters, user: PrivacyPerson['user']): boolean {
  const only = (fieldId: string, type: string, value: string | null | undefined) =>
    value != null && filters[fieldId]?.length === 1 && filters[fieldId][0]!.type === type && filters[fieldId][0]!.value === value
  return user.id ? only('user.id', 'eq', user.id) : only('user.email', 'exact', user.email)
}
