import { useSuspenseQuery } from '@tanstack/react-query'
import { Activity } from 'lucide-react'
import type { Filters } from '../../../contract/filters.ts'
import { MAX_STABILITY_RELEASES, type Stability, type StabilityRelease } from '../../../contract/stability.ts'
import { projectQuery } from '../../api/projects.ts'
import { stabilityQuery } from '../../api/stability.ts'
import { Badge } from '../../components/ui/badge.tsx'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { CopyButton } from '../../components/ui/copy-button.tsx'
import { PageHeader } from '../../components/ui/page-header.tsx'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { cn } from '../../lib/cn.ts'
import { formatCount, formatCountOf } from '../../lib/relative-time.ts'
import { TimeRangeSelect, describeTimeRange } from '../filters/time-range-select.tsx'
import { timeRangeOf } from '../filters/to-filter-search.ts'
import { ProjectNav } from '../projects/project-nav.tsx'
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
      <CardContent className="flex flex-col gap-3 py-6">
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
      <CardContent className="py-4">
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

const releaseKey = (release: StabilityRelease) => `${release.release_stage}\u0000${release.app_version}`

/** Per release, the most recently seen first. */
function ReleasesTable({ releases }: { releases: StabilityRelease[] }) {
  return (
    <Card aria-labelledby="stability-releases-title">
      <CardHeader>
        <CardTitle id="stability-releases-title">Releases</CardTitle>
        {releases.length >= MAX_STABILITY_RELEASES ? (
          <span className="text-xs text-muted-foreground">
            The {MAX_STABILITY_RELEASES} most recently seen; the total above counts all
          </span>
        ) : null}
      </CardHeader>
      {/* The table follows the width it is given: below 48rem each release is a stacked card
          without a header row (the crash-free rate first with the last seen time beside it, then
          stage and version, then the counts, each named): nothing scrolls sideways on a phone. */}
      <div className="@container overflow-x-auto">
        <table className="w-full text-left text-sm">
          <thead className="bg-surface-muted text-xs text-muted-foreground @max-3xl:hidden">
            <tr>
              <th scope="col" className="px-4 py-2 font-medium">Stage</th>
              <th scope="col" className="px-4 py-2 font-medium">Version</th>
              <th scope="col" className="px-4 py-2 text-right font-medium">Sessions</th>
              <th scope="col" className="px-4 py-2 text-right font-medium">Crashed</th>
              <th scope="col" className="px-4 py-2 text-right font-medium">Crash-free</th>
              <th scope="col" className="px-4 py-2 font-medium">Last seen</th>
            </tr>
          </thead>
          <tbody>
            {releases.map((release) => {
              const { tone, label } = stabilityTone(release.crash_free_rate)
              return (
                <tr
                  key={releaseKey(release)}
                  className="border-t border-border @max-3xl:grid @max-3xl:grid-cols-[auto_auto_minmax(0,1fr)] @max-3xl:items-baseline @max-3xl:gap-x-4 @max-3xl:gap-y-0.5 @max-3xl:px-4 @max-3xl:py-3 @max-3xl:first:border-t-0"
                >
                  <td className="px-4 py-2 whitespace-nowrap @max-3xl:col-start-1 @max-3xl:p-0 @max-3xl:font-medium">
                    {release.release_stage}
                  </td>
                  <td
                    className="max-w-48 truncate px-4 py-2 font-mono text-xs @max-3xl:col-span-2 @max-3xl:max-w-none @max-3xl:p-0 @max-3xl:whitespace-normal @max-3xl:[overflow-wrap:anywhere]"
                    title={release.app_version || undefined}
                  >
                    {release.app_version || <span className="font-sans text-muted-foreground">(no version)</span>}
                  </td>
                  {/* Stacked, the counts lose their column headers: each says what it counts. */}
                  <td className="px-4 py-2 text-right tabular-nums @max-3xl:p-0 @max-3xl:text-left @max-3xl:text-muted-foreground">
                    {formatCount(release.sessions)}
                    <span className="@3xl:hidden"> {release.sessions === 1 ? 'session' : 'sessions'}</span>
                  </td>
                  <td className="px-4 py-2 text-right tabular-nums @max-3xl:p-0 @max-3xl:text-left @max-3xl:text-muted-foreground">
                    {formatCount(release.crashed_sessions)}
                    <span className="@3xl:hidden"> crashed</span>
                  </td>
                  <td
                    // relative: the sr-only label is positioned inside the scrolling table, not against the page.
                    className={cn(
                      'relative px-4 py-2 text-right font-medium whitespace-nowrap tabular-nums',
                      '@max-3xl:order-first @max-3xl:col-span-2 @max-3xl:p-0 @max-3xl:text-left @max-3xl:text-lg @max-3xl:font-semibold',
                      toneText[tone],
                    )}
                    title={release.crash_free_rate === null ? 'No sessions counted for this release: is session tracking on?' : label}
                  >
                    {formatCrashFreeRate(release.crash_free_rate)}
                    {/* The band is read out in the table; on a card it is shown too, beside the rate. */}
                    <span className="sr-only @max-3xl:not-sr-only @max-3xl:ml-2 @max-3xl:text-sm @max-3xl:font-medium">
                      {' '}
                      <span className="@max-3xl:hidden">(</span>
                      {label}
                      <span className="@max-3xl:hidden">)</span>
                    </span>
                  </td>
                  <td className="px-4 py-2 text-muted-foreground @max-3xl:col-start-3 @max-3xl:row-start-1 @max-3xl:p-0 @max-3xl:text-right @max-3xl:text-xs">
                    <span className="@3xl:hidden @max-3xl:block">last seen </span>
                    <RelativeTime value={release.last_seen} />
                  </td>
                </tr>
              )
            })}
          </tbody>
        </table>
      </div>
    </Card>
  )
}

/** A project's stability page: crash-free sessions over the period in the URL, and per release. */
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
        description="Sessions without an unhandled error, by release"
        actions={<TimeRangeSelect id="stability-time-range" filters={filters} onChange={onFiltersChange} />}
      />
      <div className="flex flex-col gap-4">
        {empty ? (
          <NoSessions apiKey={project.api_key} origin={window.location.origin} />
        ) : (
          <>
            <StabilitySummary total={data.total} period={period} />
            <ReleasesTable releases={data.releases} />
          </>
        )}
      </div>
    </>
  )
}
