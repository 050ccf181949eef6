import { UserCheck, Users } from 'lucide-react'
import type { Filters } from '../../../contract/filters.ts'
import type { PrivacyPreview } from '../../../contract/privacy.ts'
import { Button } from '../../components/ui/button.tsx'
import { cn } from '../../lib/cn.ts'
import { formatCount, formatCountOf } from '../../lib/relative-time.ts'
import { canNarrowTo, countPeople, isOnlyPerson, onlyPerson, personLabel } from './to-people-summary.ts'

/**
 * Whose events the selection matches: an email or a name is matched as a substring unless marked
 * exact, so "ann" also takes joanna@…. Several people are listed (the first 20, most events
 * first), each with a way to narrow the selection to them exactly: by user id, else by whole email.
 */
export function MatchedPeople({
  people,
  filters,
  onFiltersChange,
}: {
  people: PrivacyPreview['people']
  filters: Filters
  onFiltersChange: (next: Filters) => void
}) {
  const several = people.total > 1 || people.capped
  const more = people.total - people.items.length
  return (
    <section
      aria-label="Matching people"
      className={cn('flex flex-col gap-2 rounded-md border px-3 py-2 text-sm', several ? 'border-warning/60 bg-warning/10' : 'border-border')}
    >
      <p className="flex items-center gap-2">
        {several ? <Users aria-hidden="true" className="size-4 shrink-0" /> : <UserCheck aria-hidden="true" className="size-4 shrink-0" />}
        <span>
          <strong className="font-semibold">{people.total === 0 && !people.capped ? 'No one identified' : countPeople(people)}</strong>
          {several ? ': the email and name fields match any part of them. Check that each is the person you mean.' : null}
          {people.events_without_user > 0 ? (
            <span className="text-muted-foreground"> · {formatCountOf(people.events_without_user, 'event')} with no user details</span>
          ) : null}
        </span>
      </p>
      {people.items.length > 0 ? (
        <ul aria-label="People" className="flex flex-col divide-y divide-border">
          {people.items.map((person) => {
            const label = personLabel(person)
            const details = [person.user.name, person.user.id && person.user.id !== label ? `user id ${person.user.id}` : null].filter(Boolean)
            return (
              <li key={`${person.user.id}:${person.user.email}:${person.user.name}`} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-1.5">
                <span className="min-w-0 basis-full [overflow-wrap:anywhere] sm:flex-1 sm:basis-auto">
                  <span className="font-medium">{label}</span>
                  {details.length > 0 ? <span className="text-muted-foreground"> · {details.join(' · ')}</span> : null}
                </span>
                <span className="text-xs text-muted-foreground tabular-nums">{formatCountOf(person.events, 'event')}</span>
                {several && canNarrowTo(person.user) && !isOnlyPerson(filters, person.user) ? (
                  <Button size="sm" aria-label={`Only this person: ${label}`} onClick={() => onFiltersChange(onlyPerson(filters, person.user))}>
                    Only this person
                  </Button>
                ) : several && !canNarrowTo(person.user) ? (
                  <span className="text-xs text-muted-foreground">no user id or email: matched by name only</span>
                ) : null}
              </li>
            )
          })}
        </ul>
      ) : null}
      {more > 0 ? (
        <p className="text-xs text-muted-foreground">
          and {people.capped ? 'at least ' : ''}
          {formatCount(more)} more
        </p>
      ) : null}
    </section>
  )
}
