import { useInfiniteQuery, useQuery } from '@tanstack/react-query'
import { useId, useState } from 'react'
import type { Filters } from '../../../contract/filters.ts'
import { errorsInfiniteQuery, type ErrorListParams } from '../../api/errors.ts'
import { projectTrendQuery, trendExtentQuery } from '../../api/trends.ts'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { TrendBody, ResolutionSelect, ScaleSelect, describeEmptyTrend, describeResolution } from './trend-panel.tsx'
import { totalEvents, type ResolutionChoice, type TrendScale } from './to-trend-series.ts'
import { toDataStart, useTrendWindow } from './use-trend-window.ts'

// The errors list's default order without filters: the same request the errors page makes to
// decide whether to show "Send your first error".
const ALL_ERRORS: ErrorListParams = { sort: 'last_seen', direction: 'desc', filters: {} }

/**
 * The project's event volume over the list's time range, with the list's filters. Dragging
 * across the bars narrows the time range to the selection (event.since + event.before).
 */
export function ProjectTrendChart({
  projectId,
  filters,
  resolution: choice,
  onResolutionChange,
  onSelectRange,
  height = 140,
  scale: keptScale,
  onScaleChange,
}: {
  projectId: string
  filters: Filters
  /** The bars' height in pixels: the errors page keeps it short so the list starts high. */
  height?: number
  resolution: ResolutionChoice
  onResolutionChange: (next: ResolutionChoice) => void
  onSelectRange: (range: { since: string; before: string }) => void
  /** The count scale, when the caller keeps it (in the URL); else the chart keeps its own. */
  scale?: TrendScale
  onScaleChange?: (next: TrendScale) => void
}) {
  const id = useId()
  const [localScale, setLocalScale] = useState<TrendScale>('linear')
  const scale = onScaleChange ? (keptScale ?? 'linear') : localScale
  const setScale = onScaleChange ?? setLocalScale
  // The chart starts where the data does (the oldest matching error's first event), not 30 days back by default.
  const extent = useQuery(trendExtentQuery(projectId, filters))
  const trend = useTrendWindow(filters, choice, toDataStart(extent))
  const query = useQuery({
    ...projectTrendQuery(projectId, { resolution: trend.resolution, filters: trend.filters }),
    enabled: trend.ready,
  })
  // Only for an empty chart: has the project ever received an event, or do the range and filters hide them?
  const chartEmpty = query.data !== undefined && totalEvents(query.data) === 0
  const anyErrors = useInfiniteQuery({ ...errorsInfiniteQuery(projectId, ALL_ERRORS), enabled: chartEmpty })
  const firstPage = anyErrors.data?.pages[0]
  const empty = anyErrors.isError
    ? describeEmptyTrend({ hasEvents: true, filters })
    : firstPage
      ? describeEmptyTrend({ hasEvents: firstPage.items.length > 0, filters })
      : null
  return (
    <Card aria-labelledby={`${id}-title`}>
      <CardHeader compact>
        <CardTitle id={`${id}-title`}>
          Events <span className="font-normal text-muted-foreground">· {trend.rangeLabel}, {describeResolution(trend.resolution)}</span>
        </CardTitle>
        <div className="flex flex-wrap items-center gap-3">
          <ResolutionSelect
            id={`${id}-resolution`}
            choice={choice}
            resolved={trend.autoResolution}
            onChange={onResolutionChange}
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
          label={`Events ${describeResolution(trend.resolution)}, ${trend.rangeLabel}`}
          height={height}
          empty={empty}
          onSelectRange={onSelectRange}
          scale={scale}
        />
      </CardContent>
    </Card>
  )
}
