import { useQuery } from '@tanstack/react-query'
import { useId, useState } from 'react'
import type { Filters } from '../../../contract/filters.ts'
import { errorQuery } from '../../api/errors.ts'
import { errorTrendQuery } from '../../api/trends.ts'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { TimeRangeSelect } from '../filters/time-range-select.tsx'
import { withTimeRange } from '../filters/to-filter-search.ts'
import { TrendBody, ResolutionSelect, ScaleSelect, describeEmptyTrend, describeResolution } from './trend-panel.tsx'
import type { ResolutionChoice, TrendScale } from './to-trend-series.ts'
import { toDataStart, useTrendWindow } from './use-trend-window.ts'

/**
 * One error's events over time, on the error page. Same range semantics as the project chart:
 * a time range control (event.since) and dragging across bars (event.since + event.before).
 * With `onFiltersChange` the range goes to the caller (the URL); without, it stays local.
 */
export function ErrorTrendChart({
  projectId,
  errorId,
  filters,
  onFiltersChange,
  resolution,
  onResolutionChange,
  scale: keptScale,
  onScaleChange,
}: {
  projectId: string
  errorId: string
  filters: Filters
  onFiltersChange?: (next: Filters) => void
  /** The resolution, when the caller keeps it (in the URL); else the chart keeps its own. */
  resolution?: ResolutionChoice
  onResolutionChange?: (next: ResolutionChoice) => void
  /** The count scale, when the caller keeps it (in the URL); else the chart keeps its own. */
  scale?: TrendScale
  onScaleChange?: (next: TrendScale) => void
}) {
  const id = useId()
  const [localScale, setLocalScale] = useState<TrendScale>('linear')
  const scale = onScaleChange ? (keptScale ?? 'linear') : localScale
  const setScale = onScaleChange ?? setLocalScale
  const [localFilters, setLocalFilters] = useState<Filters | null>(null)
  const [localChoice, setLocalChoice] = useState<ResolutionChoice>('auto')
  const choice = onResolutionChange ? (resolution ?? 'auto') : localChoice
  const setChoice = onResolutionChange ?? setLocalChoice
  const current = onFiltersChange ? filters : (localFilters ?? filters)
  const change = onFiltersChange ?? setLocalFilters
  // The error's first event is where its chart can start (already loaded by the error page).
  const error = useQuery(errorQuery(projectId, errorId))
  const trend = useTrendWindow(current, choice, toDataStart({ data: error.data?.first_seen, isError: error.isError }))
  const query = useQuery({
    ...errorTrendQuery(projectId, errorId, { resolution: trend.resolution, filters: trend.filters }),
    enabled: trend.ready,
  })
  return (
    <Card aria-labelledby={`${id}-title`}>
      <CardHeader compact>
        <CardTitle id={`${id}-title`}>
          Trend <span className="font-normal text-muted-foreground">· {trend.rangeLabel}, {describeResolution(trend.resolution)}</span>
        </CardTitle>
        <div className="flex flex-wrap items-center gap-3">
          <TimeRangeSelect id={`${id}-range`} filters={current} onChange={change} />
          <ResolutionSelect
            id={`${id}-resolution`}
            choice={choice}
            resolved={trend.autoResolution}
            onChange={setChoice}
            isAllowed={trend.isAllowed}
          />
          <ScaleSelect id={`${id}-scale`} scale={scale} onChange={setScale} />
        </div>
      </CardHeader>
      <CardContent>
        <TrendBody
          query={query}
          resolutionMs={trend.resolutionMs}
          windowMs={trend.windowMs}
          label={`Events of this error ${describeResolution(trend.resolution)}, ${trend.rangeLabel}`}
          height={120}
          // An error exists because it has events.
          empty={describeEmptyTrend({ hasEvents: true, filters: current })}
          onSelectRange={(range) => change(withTimeRange(current, { kind: 'absolute', ...range }))}
          scale={scale}
        />
      </CardContent>
    </Card>
  )
}
