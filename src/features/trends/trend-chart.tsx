// The one wrapper around recharts for trend bars (CONVENTIONS: wrap third-party widgets once).
import { useState } from 'react'
import { Bar, BarChart, CartesianGrid, ReferenceArea, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts'
import type { TrendBucket } from '../../../contract/trends.ts'
import { Button } from '../../components/ui/button.tsx'
import { NumbersDisclosure } from '../../components/ui/numbers-table.tsx'
import { formatCompactCount, formatCount } from '../../lib/relative-time.ts'
import { brushedRange, formatBucketRange, logScaleTicks, timeAxisProps, toTrendPoints, type TrendPoint, type TrendScale } from './to-trend-series.ts'

export interface TrendChartProps {
  buckets: readonly TrendBucket[]
  /** Bucket size in ms and the whole window in ms, for tick labels. */
  resolutionMs: number
  windowMs: number
  /** What the chart shows, for screen readers and the data table's caption. */
  label: string
  height?: number
  /** Dragging across bars (or choosing a row of the data table) selects that time range. */
  onSelectRange?: (range: { since: string; before: string }) => void
  /** Width before the container is measured (and in tests, where nothing is measured). */
  initialWidth?: number
  /** Linear (default) or log counts. */
  scale?: TrendScale
}

const toIndex = (value: unknown): number | null => {
  const index = Number(value)
  return value === undefined || value === null || Number.isNaN(index) ? null : index
}

function TrendTooltip({ active, payload }: { active?: boolean; payload?: readonly { payload?: TrendPoint }[] }) {
  const point = payload?.[0]?.payload
  if (!active || !point) return null
  return (
    <div className="rounded-md border border-border bg-surface px-2 py-1 text-xs shadow-sm">
      <p className="text-muted-foreground">{formatBucketRange(point.from, point.to)}</p>
      <p className="font-medium tabular-nums">{formatCount(point.events)} events</p>
    </div>
  )
}

/**
 * Event counts as bars over time. Drag across bars to select a range; every number is also in
 * a collapsible table below (the chart's text alternative), whose rows can select one bucket.
 */
export function TrendChart({
  buckets,
  resolutionMs,
  windowMs,
  label,
  height = 160,
  onSelectRange,
  initialWidth = 720,
  scale = 'linear',
}: TrendChartProps) {
  const points = toTrendPoints(buckets)
  // Symlog rather than log: it draws 0 (an empty bucket) at the baseline, where log has no value.
  // As many labels as the plot (the height less the time axis) has room for, 14 px each, at most four.
  const logTicks =
    scale === 'log'
      ? logScaleTicks(Math.max(0, ...points.map((point) => point.events)), Math.min(4, Math.max(2, Math.floor((height - 28) / 14) + 1)))
      : undefined
  const [drag, setDrag] = useState<{ start: number; end: number } | null>(null)

  const finishDrag = () => {
    if (drag && drag.start !== drag.end && onSelectRange) {
      const range = brushedRange(buckets, drag.start, drag.end)
      if (range) onSelectRange(range)
    }
    setDrag(null)
  }

  const startPoint = drag ? points[Math.min(drag.start, drag.end)] : undefined
  const endPoint = drag ? points[Math.max(drag.start, drag.end)] : undefined

  return (
    <figure aria-label={scale === 'log' ? `${label} (log scale)` : label} className="flex flex-col gap-2">
      <div aria-hidden="true" className={onSelectRange ? 'cursor-crosshair select-none' : undefined}>
        <ResponsiveContainer width="100%" height={height} initialDimension={{ width: initialWidth, height }}>
          <BarChart
            data={points}
            margin={{ top: 4, right: 8, bottom: 0, left: 0 }}
            // A share of each bucket, not a pixel: hundreds of buckets on a phone keep visible bars.
            barCategoryGap="10%"
            accessibilityLayer={false}
            onMouseDown={(state) => {
              const index = toIndex(state.activeTooltipIndex)
              if (index !== null && onSelectRange) setDrag({ start: index, end: index })
            }}
            onMouseMove={(state) => {
              const index = toIndex(state.activeTooltipIndex)
              if (drag && index !== null && index !== drag.end) setDrag({ ...drag, end: index })
            }}
            onMouseUp={finishDrag}
            onMouseLeave={() => setDrag(null)}
          >
            <CartesianGrid vertical={false} stroke="var(--color-border)" />
            <XAxis {...timeAxisProps(resolutionMs, windowMs)} />
            <YAxis
              allowDecimals={false}
              // Five ticks on a chart this short skipped labels ("0 1 2 4"); four always fit.
              tickCount={4}
              {...(logTicks ? { scale: 'symlog', ticks: logTicks, domain: [0, logTicks[logTicks.length - 1]!], interval: 0 } : {})}
              // Compact labels ("20K", "1.5M") are at most four characters, so they fit this width at
              // any volume; "20,000" did not and was clipped to "0,000". Exact counts are in the tooltip
              // and the table.
              width={40}
              tick={{ fontSize: 11, fill: 'var(--color-muted-foreground)' }}
              tickLine={false}
              axisLine={false}
              tickFormatter={(value: number) => formatCompactCount(value)}
            />
            <Tooltip content={<TrendTooltip />} cursor={{ fill: 'var(--color-surface-muted)' }} isAnimationActive={false} />
            <Bar dataKey="events" fill="var(--color-accent)" isAnimationActive={false} radius={[2, 2, 0, 0]} />
            {startPoint && endPoint ? (
              <ReferenceArea x1={startPoint.time} x2={endPoint.time} fill="var(--color-accent)" fillOpacity={0.15} />
            ) : null}
          </BarChart>
        </ResponsiveContainer>
      </div>
      <NumbersDisclosure
        caption={label}
        rows={points}
        rowKey={(point) => point.from}
        columns={[
          { header: 'Time', cell: (point) => formatBucketRange(point.from, point.to) },
          { header: 'Events', numeric: true, cell: (point) => formatCount(point.events) },
          ...(onSelectRange
            ? [
                {
                  header: 'Select',
                  hidden: true,
                  controls: true,
                  cell: (point: TrendPoint) => (
                    <Button
                      size="sm"
                      variant="ghost"
                      aria-label={`Zoom to ${formatBucketRange(point.from, point.to)}`}
                      onClick={() => onSelectRange({ since: point.from, before: point.to })}
                    >
                      Zoom
                    </Button>
                  ),
                },
              ]
            : []),
        ]}
      />
    </figure>
  )
}
