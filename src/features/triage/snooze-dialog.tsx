import { useId, useState, type FormEvent } from 'react'
import type { ReopenRules } from '../../../contract/errors.ts'
import { Button } from '../../components/ui/button.tsx'
import { Dialog } from '../../components/ui/dialog.tsx'
import { Input, Select } from '../../components/ui/input.tsx'

type RuleKind = ReopenRules['reopen_if']

const PRESETS = [
  { id: '1h', label: '1 hour', seconds: 3_600 },
  { id: '6h', label: '6 hours', seconds: 6 * 3_600 },
  { id: '1d', label: '1 day', seconds: 86_400 },
  { id: '7d', label: '7 days', seconds: 7 * 86_400 },
  { id: '30d', label: '30 days', seconds: 30 * 86_400 },
] as const

const UNIT_SECONDS = { minutes: 60, hours: 3_600, days: 86_400 } as const
type Unit = keyof typeof UNIT_SECONDS

/** A positive whole number from a text field, or null. */
const wholeNumber = (text: string): number | null => (/^\s*\d+\s*$/.test(text) && Number(text) >= 1 ? Number(text) : null)

/**
 * Choose how a snoozed error comes back: after N more events, N events within M hours, or
 * after a time period (presets or custom). Calls onSnooze with the rule in the API's shape.
 */
export function SnoozeDialog({
  open,
  title = 'Snooze error',
  onClose,
  onSnooze,
}: {
  open: boolean
  title?: string
  onClose: () => void
  onSnooze: (rules: ReopenRules) => void
}) {
  return (
    <Dialog open={open} onClose={onClose} title={title} description="Hide it until one of these happens; then it reopens.">
      <SnoozeForm onCancel={onClose} onSnooze={onSnooze} />
    </Dialog>
  )
}

function SnoozeForm({ onCancel, onSnooze }: { onCancel: () => void; onSnooze: (rules: ReopenRules) => void }) {
  const id = useId()
  const [kind, setKind] = useState<RuleKind>('n_additional_occurrences')
  const [additional, setAdditional] = useState('10')
  const [occurrences, setOccurrences] = useState('10')
  const [hours, setHours] = useState('1')
  const [preset, setPreset] = useState<string>('1d')
  const [customAmount, setCustomAmount] = useState('2')
  const [customUnit, setCustomUnit] = useState<Unit>('hours')
  const [problem, setProblem] = useState<string | null>(null)

  const submit = (event: FormEvent) => {
    event.preventDefault()
    const rules = toRules()
    if (typeof rules === 'string') {
      setProblem(rules)
      return
    }
    onSnooze(rules)
  }

  const toRules = (): ReopenRules | string => {
    if (kind === 'n_additional_occurrences') {
      const n = wholeNumber(additional)
      return n === null ? 'Enter a whole number of events, at least 1.' : { reopen_if: kind, additional_occurrences: n }
    }
    if (kind === 'n_occurrences_in_m_hours') {
      const n = wholeNumber(occurrences)
      const m = wholeNumber(hours)
      if (n === null) return 'Enter a whole number of events, at least 1.'
      if (m === null || m > 8_760) return 'Enter a whole number of hours between 1 and 8760.'
      return { reopen_if: kind, occurrences: n, hours: m }
    }
    const chosen = PRESETS.find((p) => p.id === preset)
    if (chosen) return { reopen_if: 'occurs_after', seconds: chosen.seconds }
    const amount = wholeNumber(customAmount)
    if (amount === null) return 'Enter a whole number for the period, at least 1.'
    const seconds = amount * UNIT_SECONDS[customUnit]
    if (seconds > 315_360_000) return 'The period can be at most 10 years.'
    return { reopen_if: 'occurs_after', seconds }
  }

  const radio = (value: RuleKind, label: string) => (
    <label className="flex items-center gap-2 text-sm font-medium">
      <input
        type="radio"
        name={`${id}-kind`}
        value={value}
        checked={kind === value}
        onChange={() => {
          setKind(value)
          setProblem(null)
        }}
      />
      {label}
    </label>
  )

  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-4">
      <fieldset className="flex flex-col gap-3">
        <legend className="mb-2 text-sm text-muted-foreground">Reopen</legend>

        <div className="flex flex-col gap-1.5">
          {radio('n_additional_occurrences', 'After a number of more events')}
          {kind === 'n_additional_occurrences' ? (
            <label className="ml-6 flex items-center gap-2 text-sm">
              after
              <Input
                fullWidth={false} className="w-24"
                inputMode="numeric"
                aria-label="Additional events"
                value={additional}
                onChange={(e) => setAdditional(e.target.value)}
              />
              more events
            </label>
          ) : null}
        </div>

        <div className="flex flex-col gap-1.5">
          {radio('n_occurrences_in_m_hours', 'When events happen at a rate')}
          {kind === 'n_occurrences_in_m_hours' ? (
            <div className="ml-6 flex flex-wrap items-center gap-2 text-sm">
              <Input
                fullWidth={false} className="w-24"
                inputMode="numeric"
                aria-label="Events"
                value={occurrences}
                onChange={(e) => setOccurrences(e.target.value)}
              />
              events in
              <Input
                fullWidth={false} className="w-20"
                inputMode="numeric"
                aria-label="Hours"
                value={hours}
                onChange={(e) => setHours(e.target.value)}
              />
              hours
            </div>
          ) : null}
        </div>

        <div className="flex flex-col gap-1.5">
          {radio('occurs_after', 'After a time period')}
          {kind === 'occurs_after' ? (
            <div className="ml-6 flex flex-col gap-2">
              <div role="radiogroup" aria-label="Time period" className="flex flex-wrap gap-1.5">
                {[...PRESETS, { id: 'custom', label: 'Custom' }].map((option) => (
                  <label
                    key={option.id}
                    className="flex cursor-pointer items-center gap-1.5 rounded-md border border-border px-2 py-1 text-sm has-checked:border-accent has-checked:bg-accent-soft"
                  >
                    <input
                      type="radio"
                      name={`${id}-preset`}
                      value={option.id}
                      checked={preset === option.id}
                      onChange={() => setPreset(option.id)}
                    />
                    {option.label}
                  </label>
                ))}
              </div>
              {preset === 'custom' ? (
                <div className="flex items-center gap-2 text-sm">
                  <Input
                    fullWidth={false} className="w-24"
                    inputMode="numeric"
                    aria-label="Custom period"
                    value={customAmount}
                    onChange={(e) => setCustomAmount(e.target.value)}
                  />
                  <Select
                    fullWidth={false} className="w-32"
                    aria-label="Unit"
                    value={customUnit}
                    onChange={(e) => setCustomUnit(e.target.value as Unit)}
                  >
                    <option value="minutes">minutes</option>
                    <option value="hours">hours</option>
                    <option value="days">days</option>
                  </Select>
                </div>
              ) : null}
            </div>
          ) : null}
        </div>
      </fieldset>

      {problem ? (
        <p role="alert" className="text-sm text-danger">
          {problem}
        </p>
      ) : null}

      <div className="flex justify-end gap-2">
        <Button onClick={onCancel}>Cancel</Button>
        <Button type="submit" variant="primary">
          Snooze
        </Button>
      </div>
    </form>
  )
}
