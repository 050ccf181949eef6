import { useMutation, useQuery } from '@tanstack/react-query'
import { Check } from 'lucide-react'
import { useId, useState } from 'react'
import { MAX_EVENT_QUOTA, type RateLimit } from '../../../contract/rate-limits.ts'
import { rateLimitQuery, updateRateLimitMutation } from '../../api/rate-limits.ts'
import { Button } from '../../components/ui/button.tsx'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { Input, Label } from '../../components/ui/input.tsx'
import { LoadingRegion, Skeleton } from '../../components/ui/skeleton.tsx'
import { ErrorState } from '../../components/ui/states.tsx'
import { errorMessages } from '../../lib/error-messages.ts'
import { formatCount } from '../../lib/relative-time.ts'
import { RecentVolume } from './recent-volume.tsx'

type Field = 'events_per_minute' | 'events_per_day'
const FIELDS: ReadonlyArray<{ name: Field; label: string }> = [
  { name: 'events_per_minute', label: 'Events per minute' },
  { name: 'events_per_day', label: 'Events per day (UTC)' },
]

/** A quota as typed: empty is no limit; otherwise a whole number from 1. */
function parseQuota(text: string): { value: number | null } | { error: string } {
  const trimmed = text.trim().replace(/[,\s_]/g, '')
  if (trimmed === '') return { value: null }
  if (!/^\d+$/.test(trimmed)) return { error: 'must be a whole number of events, or empty for no limit' }
  const value = Number(trimmed)
  if (value < 1) return { error: 'must be at least 1, or empty for no limit' }
  if (value > MAX_EVENT_QUOTA) return { error: `must be at most ${formatCount(MAX_EVENT_QUOTA)}` }
  return { value }
}

const shown = (quota: number | null) => (quota === null ? '' : String(quota))

/**
 * The project's rate limit on its settings page: the per-minute and per-day event quotas (admins
 * set or clear them; members read them), the events received lately and what sampling did. Messages the server returns for a
 * field ("events_per_day: …") show under that field, as do those found before sending.
 */
export function RateLimitSection({ projectId, isAdmin }: { projectId: string; isAdmin: boolean }) {
  const query = useQuery(rateLimitQuery(projectId))
  return (
    <Card aria-labelledby="project-rate-limit-title">
      <CardHeader>
        <CardTitle id="project-rate-limit-title">Rate limit</CardTitle>
      </CardHeader>
      <CardContent className="flex flex-col gap-3">
        <p className="text-sm text-muted-foreground">
          Above a quota, events are sampled: of the next quota’s worth 1 in 2 is kept, of the one after 1 in 3, and so on.
          The rest are counted, not stored. Empty means no limit.
        </p>
        {query.data ? (
          isAdmin ? (
            <RateLimitForm projectId={projectId} limit={query.data} />
          ) : (
            <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
              {FIELDS.map((field) => (
                <div key={field.name} className="contents">
                  <dt className="text-muted-foreground">{field.label}</dt>
                  <dd className="tabular-nums">{query.data[field.name] === null ? 'No limit' : formatCount(query.data[field.name]!)}</dd>
                </div>
              ))}
            </dl>
          )
        ) : query.isError ? (
          <ErrorState title="Could not load the rate limit" error={query.error} onRetry={() => void query.refetch()} />
        ) : (
          <LoadingRegion label="Loading the rate limit" className="flex flex-col gap-2">
            <Skeleton className="h-9 w-full" />
            <Skeleton className="h-9 w-full" />
          </LoadingRegion>
        )}
        {query.data ? <RecentVolume limit={query.data} /> : null}
      </CardContent>
    </Card>
  )
}

function RateLimitForm({ projectId, limit }: { projectId: string; limit: RateLimit }) {
  const id = useId()
  const [values, setValues] = useState<Record<Field, string>>({
    events_per_minute: shown(limit.events_per_minute),
    events_per_day: shown(limit.events_per_day),
  })
  const [localErrors, setLocalErrors] = useState<Partial<Record<Field, string>>>({})
  const mutation = useMutation({
    ...updateRateLimitMutation(projectId),
    onSuccess: (saved) => {
      setValues({ events_per_minute: shown(saved.events_per_minute), events_per_day: shown(saved.events_per_day) })
    },
  })
  const serverMessages = mutation.error ? errorMessages(mutation.error) : []
  const fieldError = (field: Field): string | undefined => {
    if (localErrors[field]) return localErrors[field]
    const messages = serverMessages.filter((m) => m.startsWith(`${field}: `)).map((m) => m.slice(field.length + 2))
    return messages.length > 0 ? messages.join(' ') : undefined
  }
  const otherMessages = serverMessages.filter((m) => !FIELDS.some((f) => m.startsWith(`${f.name}: `)))
  const unchanged = values.events_per_minute === shown(limit.events_per_minute) && values.events_per_day === shown(limit.events_per_day)

  const submit = (next: Record<Field, string>) => {
    const parsed = { events_per_minute: parseQuota(next.events_per_minute), events_per_day: parseQuota(next.events_per_day) }
    const errors: Partial<Record<Field, string>> = {}
    for (const { name } of FIELDS) {
      const result = parsed[name]
      if ('error' in result) errors[name] = result.error
    }
    setLocalErrors(errors)
    if (Object.keys(errors).length > 0) return
    mutation.mutate({
      events_per_minute: (parsed.events_per_minute as { value: number | null }).value,
      events_per_day: (parsed.events_per_day as { value: number | null }).value,
    })
  }

  return (
    <form
      className="flex flex-col gap-3"
      noValidate
      onSubmit={(event) => {
        event.preventDefault()
        submit(values)
      }}
    >
      <div className="grid gap-3 sm:grid-cols-2">
        {FIELDS.map((field) => {
          const error = fieldError(field.name)
          return (
            <div key={field.name} className="flex flex-col gap-1.5">
              <Label htmlFor={`${id}-${field.name}`}>{field.label}</Label>
              <Input
                id={`${id}-${field.name}`}
                inputMode="numeric"
                autoComplete="off"
                placeholder="No limit"
                value={values[field.name]}
                aria-invalid={error ? true : undefined}
                aria-describedby={error ? `${id}-${field.name}-error` : undefined}
                onChange={(event) => {
                  setValues({ ...values, [field.name]: event.target.value })
                  setLocalErrors({ ...localErrors, [field.name]: undefined })
                  if (mutation.isError || mutation.isSuccess) mutation.reset()
                }}
              />
              {error ? (
                <p id={`${id}-${field.name}-error`} role="alert" className="text-sm text-danger">
                  {field.label} {error}.
                </p>
              ) : null}
            </div>
          )
        })}
      </div>
      {otherMessages.length > 0 ? <FormErrors error={new Error(otherMessages.join('\n'))} /> : null}
      <div className="flex flex-wrap items-center gap-2">
        <Button type="submit" variant="primary" disabled={mutation.isPending || unchanged}>
          {mutation.isPending ? 'Saving…' : 'Save rate limit'}
        </Button>
        {limit.events_per_minute !== null || limit.events_per_day !== null ? (
          <Button
            type="button"
            disabled={mutation.isPending}
            onClick={() => {
              const cleared = { events_per_minute: '', events_per_day: '' }
              setValues(cleared)
              submit(cleared)
            }}
          >
            Remove rate limit
          </Button>
        ) : null}
        <p role="status" className="flex items-center gap-1.5 text-sm text-success empty:hidden">
          {mutation.isSuccess ? (
            <>
              <Check aria-hidden="true" className="size-4" />
              Saved.
            </>
          ) : null}
        </p>
      </div>
    </form>
  )
}
