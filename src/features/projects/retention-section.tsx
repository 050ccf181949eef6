import { useMutation } from '@tanstack/react-query'
import { Check } from 'lucide-react'
import { useId, useState } from 'react'
import { MAX_RETENTION_DAYS, type Project } from '../../../contract/projects.ts'
import { updateRetentionMutation } from '../../api/projects.ts'
import { Button } from '../../components/ui/button.tsx'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { Input } from '../../components/ui/input.tsx'
import { errorMessages } from '../../lib/error-messages.ts'
import { formatCount } from '../../lib/relative-time.ts'

const FIELD = 'event_retention_days'

/** "90 days", "1 day". */
export const formatDays = (days: number) => `${formatCount(days)} ${days === 1 ? 'day' : 'days'}`

/** Days as typed: a whole number from 1 to MAX_RETENTION_DAYS. */
function parseDays(text: string): { value: number } | { error: string } {
  const trimmed = text.trim().replace(/[,\s_]/g, '')
  if (!/^\d+$/.test(trimmed)) return { error: 'Enter a whole number of days.' }
  const value = Number(trimmed)
  if (value < 1) return { error: 'Keep events for at least 1 day.' }
  if (value > MAX_RETENTION_DAYS) return { error: `Events can be kept for at most ${formatCount(MAX_RETENTION_DAYS)} days.` }
  return { value }
}

/**
 * How long the project's events are kept, on its settings page: admins choose the server's default
 * or a number of days of its own; members read it. Messages the server returns for the field show
 * under it, as do those found before sending.
 */
export function RetentionSection({ project, isAdmin }: { project: Project; isAdmin: boolean }) {
  return (
    <Card aria-labelledby="project-retention-title">
      <CardHeader>
        <CardTitle id="project-retention-title">Data retention</CardTitle>
      </CardHeader>
      <CardContent className="flex flex-col gap-3">
        <p className="text-sm text-muted-foreground">
          Events older than the retention period are deleted, and charts and counts are brought up to date. Errors someone
          has acted on (fixed, snoozed, ignored, assigned, commented on or linked to an issue) stay with that decision, so
          they are recognized if they happen again; the others go with their last event.
        </p>
        {isAdmin ? (
          <RetentionForm project={project} />
        ) : (
          <p className="text-sm">
            Events are kept for <strong className="font-semibold">{formatDays(project.effective_event_retention_days)}</strong>
            {project.event_retention_days === null ? ' (the server’s default).' : '.'}
          </p>
        )}
      </CardContent>
    </Card>
  )
}

function RetentionForm({ project }: { project: Project }) {
  const id = useId()
  const saved = project.event_retention_days
  const [custom, setCustom] = useState(saved !== null)
  const [days, setDays] = useState(String(saved ?? project.default_event_retention_days))
  const [localError, setLocalError] = useState<string | null>(null)
  const mutation = useMutation(updateRetentionMutation(project.id))
  const serverMessages = mutation.error ? errorMessages(mutation.error) : []
  const fieldMessages = serverMessages.filter((m) => m.startsWith(`${FIELD}: `)).map((m) => m.slice(FIELD.length + 2))
  const otherMessages = serverMessages.filter((m) => !m.startsWith(`${FIELD}: `))
  const error = localError ?? (fieldMessages.length > 0 ? `Days ${fieldMessages.join(' ')}.` : null)
  const unchanged = custom ? saved !== null && days.trim() === String(saved) : saved === null

  const edited = () => {
    setLocalError(null)
    if (mutation.isError || mutation.isSuccess) mutation.reset()
  }

  return (
    <form
      className="flex flex-col gap-3"
      noValidate
      onSubmit={(event) => {
        event.preventDefault()
        if (!custom) return mutation.mutate(null)
        const parsed = parseDays(days)
        if ('error' in parsed) return setLocalError(parsed.error)
        mutation.mutate(parsed.value, { onSuccess: (project) => setDays(String(project.event_retention_days)) })
      }}
    >
      <fieldset className="flex flex-col gap-2" disabled={mutation.isPending}>
        <legend className="mb-1 text-sm font-medium">Keep events for</legend>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="radio"
            name={`${id}-kind`}
            className="size-4 accent-accent"
            checked={!custom}
            onChange={() => {
              setCustom(false)
              edited()
            }}
          />
          The server’s default ({formatDays(project.default_event_retention_days)})
        </label>
        <div className="flex flex-wrap items-center gap-2">
          <label className="flex items-center gap-2 text-sm">
            <input
              type="radio"
              name={`${id}-kind`}
              className="size-4 accent-accent"
              checked={custom}
              onChange={() => {
                setCustom(true)
                edited()
              }}
            />
            A number of days
          </label>
          <Input
            id={`${id}-days`}
            aria-label="Days to keep events"
            inputMode="numeric"
            autoComplete="off"
            fullWidth={false}
            className="w-24"
            value={days}
            disabled={!custom}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${id}-days-error` : undefined}
            onChange={(event) => {
              setDays(event.target.value)
              edited()
            }}
          />
        </div>
        {error ? (
          <p id={`${id}-days-error`} role="alert" className="text-sm text-danger">
            {error}
          </p>
        ) : null}
      </fieldset>
      {otherMessages.length > 0 ? <FormErrors error={new Error(otherMessages.join('\n'))} /> : null}
      <div className="flex flex-wrap items-center gap-2">
        <Button type="submit" variant="primary" disabled={mutation.isPending || unchanged}>
          {mutation.isPending ? 'Saving…' : 'Save retention'}
        </Button>
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
