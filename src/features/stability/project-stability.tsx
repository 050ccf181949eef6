import { useQuery, useSuspenseQuery } from '@tanstack/react-query'
import { useEffect } from 'react'
import { Link } from '@tanstack/react-router'
import { Activity, ArrowRight } from 'lucide-react'
import type { Filters } from '../../../contract/filters.ts'
import type { Stability } from '../../../contract/stability.ts'
import { projectQuery } from '../../api/projects.ts'
import { stabilityQuery, stabilityTrendQuery } from '../../api/stability.ts'
import { Badge } from '../../components/ui/badge.tsx'
import { buttonVariants } from '../../components/ui/button.tsx'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { Skeleton } from '../../components/ui/skeleton.tsx'
import { EmptyState, ErrorState } from '../../components/ui/states.tsx'
import { lazyComponent } from '../../lib/lazy-component.tsx'
import { CopyButton } from '../../components/ui/copy-button.tsx'
import { PageHeader } from '../../components/ui/page-header.tsx'
import { cn } from '../../lib/cn.ts'
import { formatCount, formatCountOf } from '../../lib/relative-time.ts'
import { TimeRangeSelect, describeTimeRange } from '../filters/time-range-select.tsx'
import { timeRangeOf } from '../filters/to-filter-search.ts'
import { ProjectNav } from '../projects/project-nav.tsx'
import { describeResolution } from '../trends/trend-panel.tsx'
import { toDataStart, useTrendWindow } from '../trends/use-trend-window.ts'
import { formatCrashFreeRate, stabilityTone, toStabilityFilters, type StabilityTone } from './to-stability-view.ts'

const toneText: Record<StabilityTone, string> = {
  success: 'text-success',
  warning: 'text-warning',
  danger: 'text-danger',
  neutral: 'text-muted-foreground',
}

/** A rate with its band named beside it: the colour is never the only signal. */
function RateBadge({ rate }: { rate: number | null }) {
  const { tone, label } = stabilityTone(rate)
  return <Badge tone={tone}>{label}</Badge>
}

function sessionsSnippet(apiKey: string, origin: string): string {
  return `Bugsnag.start({
  apiKey: '${apiKey}',
  autoTrackSessions: true,
  endpoints: { notify: '${origin}/notify', sessions: '${origin}/sessions' },
})`
}

/** No session counted in the period: how to turn session tracking on. */
function NoSessions({ apiKey, origin }: { apiKey: string; origin: string }) {
  const snippet = sessionsSnippet(apiKey, origin)
  return (
    <Card aria-labelledby="no-sessions-title">
      <CardContent padding={6} className="flex flex-col gap-3">
        <div className="flex items-start gap-3">
          <Activity aria-hidden="true" className="mt-0.5 size-5 shrink-0 text-accent" />
          <div className="min-w-0">
            <h2 id="no-sessions-title" className="text-base font-semibold">
              No sessions yet — enable session tracking in your notifier: autoTrackSessions
            </h2>
            <p className="mt-1 text-sm text-muted-foreground">
              Stability compares the sessions your app starts with those that hit an unhandled error. Notifiers send sessions
              to <code className="text-foreground">/sessions</code> when <code className="text-foreground">autoTrackSessions</code>{' '}
              is on (the default in most of them) and the sessions endpoint points at this server. Sent them earlier? Widen the
              time range.
            </p>
          </div>
        </div>
        <div className="flex items-center justify-between gap-2">
          <span className="text-xs font-medium text-muted-foreground">JavaScript (@bugsnag/js, @bugsnag/node)</span>
          <CopyButton value={snippet} label="Copy session tracking snippet" />
        </div>
        <pre className="overflow-x-auto rounded-md border border-border bg-surface-muted p-3 font-mono text-xs">{snippet}</pre>
      </CardContent>
    </Card>
  )
}

/** The headline: crash-free sessions over the whole period. */
function StabilitySummary({ total, period }: { total: Stability['total']; period: string }) {
  const { tone } = stabilityTone(total.crash_free_rate)
  return (
    <Card aria-labelledby="stability-total-title">
      <CardContent padding={4}>
        <h2 id="stability-total-title" className="text-sm font-medium text-muted-foreground">
          Crash-free sessions · {period}
        </h2>
        <div className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1">
          <p className={cn('text-4xl font-semibold tracking-tight tabular-nums', toneText[tone])}>
            {formatCrashFreeRate(total.crash_free_rate)}
          </p>
          <RateBadge rate={total.crash_free_rate} />
        </div>
        <p className="mt-1 text-sm text-muted-foreground tabular-nums">
          {formatCount(total.crashed_sessions)} of {formatCountOf(total.sessions, 'session')} crashed
        </p>
      </CardContent>
    </Card>
  )
}

// recharts is fetched once the page has painted (its skeleton meanwhile), as the trend charts do.
const stabilityChart = lazyComponent(() => import('./stability-chart.tsx').then((module) => module.StabilityChart))

const CHART_HEIGHT = 160

/**
 * The crash-free rate over the period, bucketed as the event trend is (auto resolution). "All
 * time" starts at the period's first session; a chart fails or loads on its own, never the page.
 */
function StabilityTrend({ projectId, filters, firstSeen }: { projectId: string; filters: Filters; firstSeen: string | null }) {
  useEffect(() => stabilityChart.preload(), [])
  const trend = useTrendWindow(filters, 'auto', toDataStart({ data: firstSeen, isError: false }), 'session')
  const query = useQuery(stabilityTrendQuery(projectId, trend.resolution, trend.filters))
  const label = `Crash-free sessions ${describeResolution(trend.resolution)}, ${trend.rangeLabel}`
  const loading = (
    <div role="status" aria-live="polite">
      <span className="sr-only">Loading crash-free sessions over time</span>
      <Skeleton style={{ height: CHART_HEIGHT }} className="w-full" />
    </div>
  )
  let body: React.ReactNode
  if (query.isPending) body = loading
  else if (query.isError) {
    body = <ErrorState title="Could not load crash-free sessions over time" error={query.error} onRetry={() => void query.refetch()} />
  } else if (query.data.every((bucket) => bucket.sessions === 0)) {
    body = (
      <EmptyState title="No sessions in this range" className="py-8">
        Choose a longer time range.
      </EmptyState>
    )
  } else {
    body = (
      <stabilityChart.Component
        fallback={loading}
        buckets={query.data}
        resolutionMs={trend.resolutionMs}
        windowMs={trend.windowMs}
        label={label}
        height={CHART_HEIGHT}
      />
    )
  }
  return (
    <Card aria-labelledby="stability-trend-title">
      <CardHeader compact>
        <CardTitle id="stability-trend-title">
          Over time <span className="font-normal text-muted-foreground">· {trend.rangeLabel}, {describeResolution(trend.resolution)}</span>
        </CardTitle>
      </CardHeader>
      <CardContent>{body}</CardContent>
    </Card>
  )
}

/** Per release numbers live on the Releases page (one table of releases, not two). */
function ReleasesLink({ projectId, count }: { projectId: string; count: number }) {
  return (
    <Card aria-labelledby="stability-releases-title">
      <CardContent padding={4} className="flex flex-wrap items-center justify-between gap-3">
        <div className="min-w-0">
          <h2 id="stability-releases-title" className="text-sm font-medium">
            By release
          </h2>
          <p className="mt-0.5 text-sm text-muted-foreground">
            {count === 0
              ? 'No release named its app version in this period.'
              : `${formatCountOf(count, 'release')} in this period. Each one’s crash-free rate, adoption and new errors are on the Releases page.`}
          </p>
        </div>
        <Link to="/projects/$projectId/releases" params={{ projectId }} className={buttonVariants({ variant: 'secondary', size: 'sm' })}>
          See releases
          <ArrowRight aria-hidden="true" />
        </Link>
      </CardContent>
    </Card>
  )
}

/** A project's stability page: crash-free sessions over the period in the URL; per release on the Releases page. */
export function ProjectStability({
  projectId,
  filters,
  onFiltersChange,
}: {
  projectId: string
  filters: Filters
  onFiltersChange: (next: Filters) => void
}) {
  const { data: project } = useSuspenseQuery(projectQuery(projectId))
  const { data } = useSuspenseQuery(stabilityQuery(projectId, toStabilityFilters(filters)))
  const period = describeTimeRange(timeRangeOf(filters))
  const empty = data.total.sessions === 0 && data.releases.length === 0
  return (
    <>
      <ProjectNav projectId={projectId} />
      <PageHeader
        title={`${project.name}: stability`}
        description="Sessions without an unhandled error"
        actions={<TimeRangeSelect id="stability-time-range" filters={filters} onChange={onFiltersChange} />}
      />
      <div className="flex flex-col gap-4">
        {empty ? (
          <NoSessions apiKey={project.api_key} origin={window.location.origin} />
        ) : (
          <>
            <StabilitySummary total={data.total} period={period} />
            <StabilityTrend projectId={projectId} filters={filters} firstSeen={data.total.first_seen} />
            <ReleasesLink projectId={projectId} count={data.releases.length} />
          </>
        )}
      </div>
    </>
  )
}
