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
import { useState } from 'react'
import type { Breadcrumb } from '../../../contract/events.ts'
import { TruncatedText } from '../../components/ui/truncated-text.tsx'
import { formatClockTime, formatExactTime } from '../../lib/relative-time.ts'

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

/** What happened before the error, oldest first, ending next to the crash. */
export function BreadcrumbsTimeline({ breadcrumbs }: { breadcrumbs: readonly Breadcrumb[] }) {
  const [showAll, setShowAll] = useState(false)
  if (breadcrumbs.length === 0) return <p className="text-sm text-muted-foreground">No breadcrumbs were recorded.</p>
  const hidden = showAll ? 0 : Math.max(0, breadcrumbs.length - INITIAL_VISIBLE)
  const visible = breadcrumbs.slice(hidden)

  return (
    <div>
      {hidden > 0 ? (
        <button
          type="button"
          className="mb-2 rounded text-xs font-medium text-accent hover:underline"
          onClick={() => setShowAll(true)}
        >
          Show {hidden} earlier breadcrumbs
        </button>
      ) : null}
      <ol aria-label="Breadcrumbs, oldest first" className="relative ml-3 border-l border-border">
        {visible.map((crumb, index) => {
          const Icon = ICONS[crumb.type] ?? Circle
          const meta = metaSummary(crumb.meta_data)
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
                    {formatClockTime(crumb.timestamp)}
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
    </div>
  )
}
