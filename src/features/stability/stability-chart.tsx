// The one wrapper around recharts for crash-free sessions over time (CONVENTIONS: wrap third-party widgets once).
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts'
import type { StabilityBucket } from '../../../contract/stability.ts'
import { NumbersDisclosure } from '../../components/ui/numbers-table.tsx'
import { formatCount, formatCountOf } from '../../lib/relative-time.ts'
import { formatBucketRange, timeAxisProps } from '../trends/to-trend-series.ts'
import { formatCrashFreeRate, stabilityDomain, toStabilityPoints, type StabilityPoint } from './to-stability-view.ts'

export interface StabilityChartProps {
  buckets: readonly StabilityBucket[]
  resolutionMs: number
  windowMs: number
  /** What the chart shows, for screen readers and the data table's caption. */
  label: string
  height?: number
  /** Width before the container is measured (and in tests, where nothing is measured). */
  initialWidth?: number
}

const rateOf = (point: StabilityPoint) => formatCrashFreeRate(point.percent === null ? null : point.percent / 100)

function StabilityTooltip({ active, payload }: { active?: boolean; payload?: readonly { payload?: StabilityPoint }[] }) {
  const point = payload?.[0]?.payload
  if (!active || !point) return null
  return (
    <div className="rounded-md border border-border bg-surface px-2 py-1 text-xs shadow-sm">
      <p className="text-muted-foreground">{formatBucketRange(point.from, point.to)}</p>
      <p className="font-medium tabular-nums">{point.percent === null ? 'No sessions' : `${rateOf(point)} crash-free`}</p>
      {point.percent === null ? null : (
        <p className="text-muted-foreground tabular-nums">
          {formatCount(point.crashed)} of {formatCountOf(point.sessions, 'session')} crashed
        </p>
      )}
    </div>
  )
}

/**
 * The crash-free rate as a line over time; a bucket without sessions is a gap. Every number is
 * also in a collapsible table below (the chart's text alternative).
 */
export function StabilityChart({ buckets, resolutionMs, windowMs, label, height = 160, initialWidth = 720 }: StabilityChartProps) {
  const points = toStabilityPoints(buckets)
  const withRate = points.filter((p) => p.percent !== null).length
  return (
    <figure aria-label={label} className="flex flex-col gap-2">
      <div aria-hidden="true">
        <ResponsiveContainer width="100%" height={height} initialDimension={{ width: initialWidth, height }}>
          <LineChart data={points} margin={{ top: 8, right: 8, bottom: 0, left: 0 }} accessibilityLayer={false}>
            <CartesianGrid vertical={false} stroke="var(--color-border)" />
            <XAxis {...timeAxisProps(resolutionMs, windowMs)} />
            <YAxis
              domain={stabilityDomain(points)}
              tickCount={4}
              width={44}
              tick={{ fontSize: 11, fill: 'var(--color-muted-foreground)' }}
              tickLine={false}
              axisLine={false}
              tickFormatter={(value: number) => `${Math.round(value * 10) / 10}%`}
            />
            <Tooltip content={<StabilityTooltip />} cursor={{ stroke: 'var(--color-border)' }} isAnimationActive={false} />
            <Line
              dataKey="percent"
              type="monotone"
              stroke="var(--color-accent)"
              strokeWidth={2}
              // A lone bucket between gaps would draw nothing without its dot.
              dot={withRate <= 40 ? { r: 2, fill: 'var(--color-accent)' } : false}
              connectNulls={false}
              isAnimationActive={false}
            />
          </LineChart>
        </ResponsiveContainer>
      </div>
      <NumbersDisclosure
        caption={label}
        rows={points}
        rowKey={(point) => point.from}
        columns={[
          { header: 'Time', cell: (point) => formatBucketRange(point.from, point.to) },
          { header: 'Sessions', numeric: true, cell: (point) => formatCount(point.sessions) },
          { header: 'Crashed', numeric: true, cell: (point) => formatCount(point.crashed) },
          { header: 'Crash-free', numeric: true, cell: (point) => rateOf(point) },
        ]}
      />
    </figure>
  )
}
