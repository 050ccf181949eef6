import { useMutation } from '@tanstack/react-query'
import { useId, useState } from 'react'
import type { Filters } from '../../../contract/filters.ts'
import {
  FILTERED_TRIGGERS,
  FORMAT_LABELS,
  SPIKE_SENSITIVITIES,
  WEBHOOK_FORMATS,
  TRIGGER_LABELS,
  WEBHOOK_TRIGGERS,
  type Webhook,
  type WebhookFormat,
  type WebhookSettings,
  type WebhookTrigger,
} from '../../../contract/webhooks.ts'
import { saveWebhookMutation } from '../../api/webhooks.ts'
import { Button } from '../../components/ui/button.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { Input, Label, Select } from '../../components/ui/input.tsx'

/** The release stage filter the form edits; other filters set through the API are kept as they are. */
const STAGE_FIELD = 'app.release_stage'

/** An example of each format's address, for the URL field. */
const URL_PLACEHOLDERS: Record<WebhookFormat, string> = {
  errata: 'https://hooks.example.com/errata',
  slack: 'https://hooks.slack.com/services/…',
  discord: 'https://discord.com/api/webhooks/…',
  teams: 'https://….logic.azure.com/workflows/…',
  mattermost: 'https://mattermost.example.com/hooks/…',
}

/**
 * Creates a webhook (`webhook` absent) or edits one: its format (Errata's signed JSON or a chat
 * service's message), target URL, triggers, the settings the
 * chosen triggers need, a release stage filter and whether it is enabled. The server checks
 * everything again (the URL's address too) and its messages show under the form.
 */
export function WebhookForm({
  projectId,
  webhook,
  onSaved,
  onCancel,
}: {
  projectId: string
  webhook?: Webhook
  onSaved: (saved: Webhook) => void
  onCancel: () => void
}) {
  const id = useId()
  const [format, setFormat] = useState<WebhookFormat>(webhook?.format ?? 'errata')
  const [url, setUrl] = useState(webhook?.url ?? '')
  const [triggers, setTriggers] = useState<WebhookTrigger[]>(webhook?.triggers ?? ['firstException'])
  const [enabled, setEnabled] = useState(webhook?.enabled ?? true)
  const frequency = webhook?.settings.errorEventFrequency
  const [threshold, setThreshold] = useState(String(frequency?.threshold ?? 100))
  const [unit, setUnit] = useState<'events' | 'users'>(frequency?.unit ?? 'events')
  const [hours, setHours] = useState(String(frequency?.hours ?? 1))
  const [sensitivity, setSensitivity] = useState(webhook?.settings.projectSpiking?.sensitivity ?? 'medium')
  const [stage, setStage] = useState(webhook?.filters[STAGE_FIELD]?.[0]?.value ?? '')

  const mutation = useMutation({ ...saveWebhookMutation(projectId), onSuccess: onSaved })
  const save = () => {
    const settings: WebhookSettings = {}
    if (triggers.includes('errorEventFrequency')) settings.errorEventFrequency = { threshold: Number(threshold), unit, hours: Number(hours) }
    if (triggers.includes('projectSpiking')) settings.projectSpiking = { sensitivity }
    const filters: Filters = { ...webhook?.filters }
    delete filters[STAGE_FIELD]
    if (stage.trim() && triggers.some((t) => FILTERED_TRIGGERS.includes(t))) filters[STAGE_FIELD] = [{ type: 'eq', value: stage.trim() }]
    const input = { url, format, triggers, settings, filters, enabled }
    mutation.mutate(webhook ? { webhookId: webhook.id, input } : { input })
  }

  const toggle = (trigger: WebhookTrigger, on: boolean) =>
    setTriggers((current) => (on ? WEBHOOK_TRIGGERS.filter((t) => t === trigger || current.includes(t)) : current.filter((t) => t !== trigger)))

  return (
    <form
      aria-labelledby={`${id}-title`}
      className="flex flex-col gap-4"
      onSubmit={(event) => {
        event.preventDefault()
        save()
      }}
    >
      <h3 id={`${id}-title`} className="text-sm font-semibold">
        {webhook ? 'Edit webhook' : 'Add a webhook'}
      </h3>
      <div className="flex flex-col gap-1.5">
        <Label htmlFor={`${id}-format`}>Format</Label>
        <Select
          id={`${id}-format`}
          fullWidth={false}
          className="sm:w-64"
          value={format}
          onChange={(event) => setFormat(event.target.value as WebhookFormat)}
        >
          {WEBHOOK_FORMATS.map((f) => (
            <option key={f} value={f}>
              {FORMAT_LABELS[f].label}
            </option>
          ))}
        </Select>
      </div>
      <div className="flex flex-col gap-1.5">
        <Label htmlFor={`${id}-url`}>Target URL</Label>
        <Input
          id={`${id}-url`}
          type="url"
          required
          inputMode="url"
          placeholder={URL_PLACEHOLDERS[format]}
          value={url}
          onChange={(event) => setUrl(event.target.value)}
          aria-describedby={`${id}-url-help`}
        />
        <p id={`${id}-url-help`} className="text-xs text-muted-foreground">
          {FORMAT_LABELS[format].hint} Private and loopback addresses are refused unless the operator allows them.
        </p>
      </div>

      <fieldset className="flex flex-col gap-2">
        <legend className="mb-1 text-sm font-medium">Notify when</legend>
        <div className="grid gap-1.5 sm:grid-cols-2">
          {WEBHOOK_TRIGGERS.map((trigger) => (
            <label key={trigger} className="flex items-start gap-2 text-sm">
              <input
                type="checkbox"
                className="mt-0.5 size-4 shrink-0 accent-accent"
                checked={triggers.includes(trigger)}
                onChange={(event) => toggle(trigger, event.target.checked)}
              />
              <span>{TRIGGER_LABELS[trigger]}</span>
            </label>
          ))}
        </div>
      </fieldset>

      {triggers.includes('errorEventFrequency') ? (
        <fieldset className="flex flex-col gap-2 rounded-md border border-border p-3">
          <legend className="px-1 text-sm font-medium">Frequency</legend>
          <div className="flex flex-wrap items-end gap-2 text-sm">
            <div className="flex flex-col gap-1">
              <Label htmlFor={`${id}-threshold`}>At least</Label>
              <Input id={`${id}-threshold`} type="number" min={1} required fullWidth={false} className="w-28" value={threshold} onChange={(e) => setThreshold(e.target.value)} />
            </div>
            <div className="flex flex-col gap-1">
              <Label htmlFor={`${id}-unit`}>of</Label>
              <Select id={`${id}-unit`} fullWidth={false} className="w-32" value={unit} onChange={(e) => setUnit(e.target.value as 'events' | 'users')}>
                <option value="events">events</option>
                <option value="users">users</option>
              </Select>
            </div>
            <div className="flex flex-col gap-1">
              <Label htmlFor={`${id}-hours`}>within hours</Label>
              <Input id={`${id}-hours`} type="number" min={1} max={168} required fullWidth={false} className="w-24" value={hours} onChange={(e) => setHours(e.target.value)} />
            </div>
          </div>
          <p className="text-xs text-muted-foreground">At most one notification per window.</p>
        </fieldset>
      ) : null}

      {triggers.includes('projectSpiking') ? (
        <div className="flex flex-col gap-1.5">
          <Label htmlFor={`${id}-sensitivity`}>Spike sensitivity</Label>
          <Select
            id={`${id}-sensitivity`}
            fullWidth={false} className="w-40"
            value={sensitivity}
            onChange={(e) => setSensitivity(e.target.value as (typeof SPIKE_SENSITIVITIES)[number])}
          >
            {SPIKE_SENSITIVITIES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </Select>
        </div>
      ) : null}

      <div className="flex flex-col gap-1.5">
        <Label htmlFor={`${id}-stage`}>Only in release stage (optional)</Label>
        <Input id={`${id}-stage`} className="sm:w-64" placeholder="production" value={stage} onChange={(e) => setStage(e.target.value)} aria-describedby={`${id}-stage-help`} />
        <p id={`${id}-stage-help`} className="text-xs text-muted-foreground">
          Narrows new errors, events, frequency, reopenings, comments, status changes and spikes.
        </p>
      </div>

      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" className="size-4 accent-accent" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
        Enabled
      </label>

      <FormErrors error={mutation.error} />
      <div className="flex flex-wrap gap-2">
        <Button type="submit" variant="primary" disabled={mutation.isPending || triggers.length === 0}>
          {mutation.isPending ? 'Saving…' : webhook ? 'Save webhook' : 'Create webhook'}
        </Button>
        <Button onClick={onCancel}>Cancel</Button>
      </div>
    </form>
  )
}
