import type { RateLimit, RateLimitHour } from '../../../contract/rate-limits.ts'
import { NumbersDisclosure } from '../../components/ui/numbers-table.tsx'
import { formatCount, formatCountOf } from '../../lib/relative-time.ts'

const hourFormat = new Intl.DateTimeFormat('en', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
/** "14:00–15:00" in the viewer's time zone; the current hour reads "14:00–now". */
export const hourLabel = (hour: string, isCurrent: boolean) =>
  `${hourFormat.format(Date.parse(hour))}–${isCurrent ? 'now' : hourFormat.format(Date.parse(hour) + 3_600_000)}`

/** "Busiest hour: 14:00–15:00, 1,204 events" for the chart's text alternative. */
export function describeHours(hours: readonly RateLimitHour[]): string {
  const total = hours.reduce((sum, h) => sum + h.events, 0)
  if (total === 0) return 'No events in the last 24 hours'
  const busiest = hours.reduce((best, h) => (h.events > best.events ? h : best))
  const current = busiest === hours[hours.length - 1]
  return `${formatCountOf(total, 'event')} in the last 24 hours; busiest hour ${hourLabel(busiest.hour, current)} with ${formatCountOf(busiest.events, 'event')}`
}

const CHART_HEIGHT = 40
const BAR_WIDTH = 10
const BAR_GAP = 2

/** The last 24 hours as bars: kept events in the accent colour, dropped ones stacked above them. */
function HourBars({ hours }: { hours: readonly RateLimitHour[] }) {
  const max = Math.max(1, ...hours.map((h) => h.events))
  const width = hours.length * (BAR_WIDTH + BAR_GAP) - BAR_GAP
  return (
    <svg role="img" aria-label={describeHours(hours)} viewBox={`0 0 ${width} ${CHART_HEIGHT}`} preserveAspectRatio="none" className="h-10 w-full max-w-md">
      {hours.map((h, i) => {
        const x = i * (BAR_WIDTH + BAR_GAP)
        const total = h.events === 0 ? 0 : Math.max(1, (h.events / max) * CHART_HEIGHT)
        const dropped = h.dropped === 0 ? 0 : Math.max(1, (h.dropped / max) * CHART_HEIGHT)
        return (
          <g key={h.hour}>
            <rect x={x} y={CHART_HEIGHT - 1} width={BAR_WIDTH} height={1} className="fill-border" />
            {total > 0 ? <rect x={x} y={CHART_HEIGHT - total} width={BAR_WIDTH} height={total - dropped} rx={1} className="fill-accent" /> : null}
            {dropped > 0 ? <rect x={x} y={CHART_HEIGHT - total} width={BAR_WIDTH} height={dropped} rx={1} className="fill-danger/60" /> : null}
          </g>
        )
      })}
    </svg>
  )
}

/**
 * How many events the project receives, counted whether or not a quota is set, so a quota can be
 * chosen from what actually arrives: the last minute, the last hour, today, the busiest minute,
 * and the last 24 hours by hour (bars, and the numbers in a table).
 */
export function RecentVolume({ limit }: { limit: RateLimit }) {
  const perDay = limit.events_per_day
  const stats: ReadonlyArray<{ label: string; value: number; of?: number | null }> = [
    { label: 'Last minute', value: limit.events_last_minute, of: limit.events_per_minute },
    { label: 'Last hour', value: limit.events_last_hour },
    { label: 'Today (UTC)', value: limit.events_today, of: perDay },
    { label: 'Busiest minute, 24 h', value: limit.busiest_minute_24h, of: limit.events_per_minute },
  ]
  const anyEvents = limit.hours.some((h) => h.events > 0)
  return (
    <section aria-labelledby="rate-limit-volume-title" className="flex flex-col gap-3 border-t border-border pt-3">
      <h3 id="rate-limit-volume-title" className="text-sm font-medium">
        Events received
      </h3>
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4">
        {stats.map((stat) => (
          <div key={stat.label} className="flex flex-col gap-0.5">
            <dt className="text-xs text-muted-foreground">{stat.label}</dt>
            <dd className="text-base font-semibold tabular-nums">
              {formatCount(stat.value)}
              {stat.of != null ? <span className="text-xs font-normal text-muted-foreground"> of {formatCount(stat.of)}</span> : null}
            </dd>
          </div>
        ))}
      </dl>
      {anyEvents ? (
        <div className="flex flex-col gap-1">
          <HourBars hours={limit.hours} />
          <p className="flex max-w-md justify-between gap-2 text-xs text-muted-foreground">
            <span>24 h ago</span>
            <span>Per hour{limit.dropped_last_24h > 0 ? ', dropped events in red' : ''}</span>
            <span>now</span>
          </p>
          <NumbersDisclosure
            caption="Events received per hour, last 24 hours"
            rows={[...limit.hours].reverse()}
            rowKey={(h) => h.hour}
            columns={[
              { header: 'Hour', cell: (h, i) => hourLabel(h.hour, i === 0) },
              { header: 'Events', numeric: true, cell: (h) => formatCount(h.events) },
              { header: 'Dropped', numeric: true, cell: (h) => formatCount(h.dropped) },
            ]}
          />
        </div>
      ) : (
        <p className="text-sm text-muted-foreground">No events received in the last 24 hours.</p>
      )}
      {limit.events_per_minute !== null || limit.events_per_day !== null || limit.dropped_last_24h > 0 ? (
        <p className="text-sm text-muted-foreground tabular-nums">
          {formatCountOf(limit.dropped_last_24h, 'event')} dropped by rate limiting in the last 24&nbsp;h
        </p>
      ) : null}
    </section>
  )
}
