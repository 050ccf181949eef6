import { useQuery } from '@tanstack/react-query'
import { useId } from 'react'
import type { Filters } from '../../../contract/filters.ts'
import { projectTrendQuery } from '../../api/trends.ts'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { TrendBody, ResolutionSelect, describeResolution } from './trend-panel.tsx'
import type { ResolutionChoice } from './to-trend-series.ts'
import { useTrendWindow } from './use-trend-window.ts'

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
}: {
  projectId: string
  filters: Filters
  resolution: ResolutionChoice
  onResolutionChange: (next: ResolutionChoice) => void
  onSelectRange: (range: { since: string; before: string }) => void
}) {
  const id = useId()
  const trend = useTrendWindow(filters, choice)
  const query = useQuery(projectTrendQuery(projectId, { resolution: trend.resolution, filters }))
  return (
    <Card aria-labelledby={`${id}-title`}>
      <CardHeader className="py-2">
        <CardTitle id={`${id}-title`}>
          Events <span className="font-normal text-muted-foreground">· {trend.rangeLabel}, {describeResolution(trend.resolution)}</span>
        </CardTitle>
        <ResolutionSelect
          id={`${id}-resolution`}
          choice={choice}
          resolved={trend.autoResolution}
          onChange={onResolutionChange}
          isAllowed={trend.isAllowed}
        />
      </CardHeader>
      <CardContent>
        <TrendBody
          query={query}
          resolutionMs={trend.resolutionMs}
          windowMs={trend.windowMs}
          label={`Events ${describeResolution(trend.resolution)}, ${trend.rangeLabel}`}
          height={140}
          onSelectRange={onSelectRange}
        />
      </CardContent>
    </Card>
  )
}
