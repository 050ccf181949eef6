import {
  AlertTriangle,
  Circle,
  Cpu,
  Globe,
  Hand,
  MousePointerClick,
  Navigation,
  RefreshCw,
  ScrollText,
  type LucideIcon,
} from 'lucide-react'
import { useId, useMemo, useState } from 'react'
import type { Breadcrumb } from '../../../contract/events.ts'
import { Input } from '../../components/ui/input.tsx'
import { TruncatedText } from '../../components/ui/truncated-text.tsx'
import { cn } from '../../lib/cn.ts'
import { formatClockTimeOn, formatExactTime } from '../../lib/relative-time.ts'

const ICONS: Record<string, LucideIcon> = {
  navigation: Navigation,
  request: Globe,
  user: MousePointerClick,
  log: ScrollText,
  error: AlertTriangle,
  state: RefreshCw,
  process: Cpu,
  manual: Hand,
}

/** Many apps leave hundreds of breadcrumbs; the ones just before the crash matter most. */
const INITIAL_VISIBLE = 25

function metaSummary(meta: Record<string, unknown>): string {
  return Object.entries(meta)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' · ')
}

/** Below this many breadcrumbs the whole timeline fits on screen: no search or type filter. */
const FILTER_FROM = 6

/** The breadcrumb types present, in the order they first occur, with how many of each. */
function typeCounts(breadcrumbs: readonly Breadcrumb[]): [string, number][] {
  const counts = new Map<string, number>()
  for (const crumb of breadcrumbs) counts.set(crumb.type, (counts.get(crumb.type) ?? 0) + 1)
  return [...counts]
}

/** Whether a breadcrumb's name, type or metadata contains the text (case-insensitive). */
function matchesText(crumb: Breadcrumb, meta: string, text: string): boolean {
  const needle = text.toLowerCase()
  return [crumb.name, crumb.type, meta].some((part) => part.toLowerCase().includes(needle))
}

/**
 * What happened before the error, oldest first, ending next to the crash. Long timelines get a
 * search over names and metadata and a filter by type, as view state (a new event starts afresh).
 */
export function BreadcrumbsTimeline({
  breadcrumbs,
  eventTime,
}: {
  breadcrumbs: readonly Breadcrumb[]
  /** When the event was received: a breadcrumb from another day shows its date. */
  eventTime: string
}) {
  const [showAll, setShowAll] = useState(false)
  const [text, setText] = useState('')
  const [type, setType] = useState<string | null>(null)
  const searchId = useId()
  const entries = useMemo(() => breadcrumbs.map((crumb) => ({ crumb, meta: metaSummary(crumb.meta_data) })), [breadcrumbs])
  const types = useMemo(() => typeCounts(breadcrumbs), [breadcrumbs])
  if (breadcrumbs.length === 0) return <p className="text-sm text-muted-foreground">No breadcrumbs were recorded.</p>

  const filtering = text.trim() !== '' || type !== null
  const matching = filtering
    ? entries.filter(({ crumb, meta }) => (type === null || crumb.type === type) && matchesText(crumb, meta, text.trim()))
    : entries
  const hidden = showAll || filtering ? 0 : Math.max(0, matching.length - INITIAL_VISIBLE)
  const visible = matching.slice(hidden)

  return (
    <div>
      {breadcrumbs.length >= FILTER_FROM ? (
        <div className="mb-3 flex flex-col gap-2">
          <label htmlFor={searchId} className="sr-only">
            Search breadcrumbs
          </label>
          <Input
            id={searchId}
            type="search"
            placeholder="Search breadcrumbs"
            size="sm"
            value={text}
            onChange={(event) => setText(event.target.value)}
          />
          {types.length > 1 ? (
            <div role="group" aria-label="Breadcrumb types" className="flex flex-wrap gap-1.5">
              {[['all', breadcrumbs.length] as const, ...types].map(([name, count]) => {
                const value = name === 'all' ? null : name
                const pressed = type === value
                return (
                  <button
                    key={name}
                    type="button"
                    aria-pressed={pressed}
                    onClick={() => setType(value)}
                    className={cn(
                      'rounded-full border px-2 py-0.5 text-xs',
                      pressed
                        ? 'border-accent bg-accent-soft font-medium text-foreground'
                        : 'border-border text-muted-foreground hover:text-foreground',
                    )}
                  >
                    {name} <span className="tabular-nums">({count})</span>
                  </button>
                )
              })}
            </div>
          ) : null}
          {filtering ? (
            <p role="status" className="text-xs text-muted-foreground">
              {matching.length} of {breadcrumbs.length} breadcrumbs
            </p>
          ) : null}
        </div>
      ) : null}
      {hidden > 0 ? (
        <button
          type="button"
          className="mb-2 rounded text-xs font-medium text-accent hover:underline"
          onClick={() => setShowAll(true)}
        >
          Show {hidden} earlier breadcrumbs
        </button>
      ) : null}
      {visible.length === 0 ? (
        <p className="text-sm text-muted-foreground">No breadcrumbs match.</p>
      ) : (
        <ol aria-label="Breadcrumbs, oldest first" className="relative ml-3 border-l border-border">
          {visible.map(({ crumb, meta }, index) => {
            const Icon = ICONS[crumb.type] ?? Circle
            return (
              <li key={hidden + index} className="relative pb-3 pl-5 last:pb-0">
                <span className="absolute top-0.5 -left-3 flex size-6 items-center justify-center rounded-full border border-border bg-surface">
                  <Icon aria-hidden="true" className="size-3.5 text-muted-foreground" />
                </span>
                <div className="flex flex-wrap items-baseline gap-x-2">
                  {crumb.timestamp ? (
                    <time
                      dateTime={crumb.timestamp}
                      title={formatExactTime(crumb.timestamp)}
                      className="font-mono text-xs text-muted-foreground tabular-nums"
                    >
                      {formatClockTimeOn(crumb.timestamp, eventTime)}
                    </time>
                  ) : null}
                  <span className="text-xs text-muted-foreground">{crumb.type}</span>
                  <span className="min-w-0 text-sm font-medium [overflow-wrap:anywhere]">{crumb.name}</span>
                </div>
                {meta ? (
                  <p className="mt-0.5 font-mono text-xs text-muted-foreground">
                    <TruncatedText text={meta} maxChars={240} />
                  </p>
                ) : null}
              </li>
            )
          })}
        </ol>
      )}
    </div>
  )
}
