import { useSuspenseInfiniteQuery, useSuspenseQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { ArrowDownRight, ArrowRight, ArrowUpRight, Rocket } from 'lucide-react'
import type { Release } from '../../../contract/releases.ts'
import { projectQuery } from '../../api/projects.ts'
import { releasesInfiniteQuery } from '../../api/releases.ts'
import { Badge } from '../../components/ui/badge.tsx'
import { Button } from '../../components/ui/button.tsx'
import { Card, CardContent } from '../../components/ui/card.tsx'
import { CopyButton } from '../../components/ui/copy-button.tsx'
import { PageHeader } from '../../components/ui/page-header.tsx'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { cn } from '../../lib/cn.ts'
import { formatCount } from '../../lib/relative-time.ts'
import { toFilterSearch } from '../filters/to-filter-search.ts'
import { ProjectNav } from '../projects/project-nav.tsx'
import { formatCrashFreeRate, stabilityTone } from '../stability/to-stability-view.ts'
import { crashFreeTrends, releaseErrorFilters, type Trend } from './to-release-view.ts'

const toneText = { success: 'text-success', warning: 'text-warning', danger: 'text-danger', neutral: 'text-muted-foreground' } as const

function buildSnippet(apiKey: string, origin: string): string {
  return `npx bugsnag-build-reporter --api-key ${apiKey} --app-version 1.2.3 \\
  --release-stage production --endpoint ${origin}`
}

/** No release yet: events and sessions name their app version, or a build is reported. */
function NoReleases({ apiKey, origin }: { apiKey: string; origin: string }) {
  const snippet = buildSnippet(apiKey, origin)
  return (
    <Card aria-labelledby="no-releases-title">
      <CardContent padding={6} className="flex flex-col gap-3">
        <div className="flex items-start gap-3">
          <Rocket aria-hidden="true" className="mt-0.5 size-5 shrink-0 text-accent" />
          <div className="min-w-0">
            <h2 id="no-releases-title" className="text-base font-semibold">
              No releases yet
            </h2>
            <p className="mt-1 text-sm text-muted-foreground">
              A release appears with the first event or session that names its app version (set{' '}
              <code className="text-foreground">appVersion</code> in your notifier), or when your build reports it.
            </p>
          </div>
        </div>
        <div className="flex items-center justify-between gap-2">
          <span className="text-xs font-medium text-muted-foreground">Report a build</span>
          <CopyButton value={snippet} label="Copy build report command" />
        </div>
        <pre className="overflow-x-auto rounded-md border border-border bg-surface-muted p-3 font-mono text-xs">{snippet}</pre>
      </CardContent>
    </Card>
  )
}

function TrendMark({ trend }: { trend: Trend }) {
  if (!trend) return null
  const Icon = trend.direction === 'up' ? ArrowUpRight : trend.direction === 'down' ? ArrowDownRight : ArrowRight
  const words =
    trend.direction === 'same' ? 'unchanged from the previous release' : `${trend.direction} ${trend.points.toFixed(1)} points from the previous release`
  return (
    <span
      className={cn('inline-flex items-center text-xs', trend.direction === 'down' ? 'text-danger' : trend.direction === 'up' ? 'text-success' : 'text-muted-foreground')}
      title={words}
    >
      <Icon aria-hidden="true" className="size-3.5" />
      {trend.direction === 'same' ? null : trend.points.toFixed(1)}
      <span className="sr-only"> ({words})</span>
    </span>
  )
}

function Figure({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-muted-foreground">{label}</dt>
      <dd className="mt-0.5 text-sm font-medium tabular-nums">{children}</dd>
    </div>
  )
}

/** One release: version, stage and when, its figures, build details and the way to its errors. */
function ReleaseItem({ projectId, release, trend }: { projectId: string; release: Release; trend: Trend }) {
  const { tone, label } = stabilityTone(release.crash_free_rate)
  const headingId = `release-${release.id}`
  return (
    <li aria-labelledby={headingId} className="border-t border-border px-4 py-3 first:border-t-0">
      <div className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
        <h3 id={headingId} className="min-w-0 font-mono text-base font-semibold [overflow-wrap:anywhere]">
          {release.app_version}
          <span className="ml-2 font-sans text-sm font-normal text-muted-foreground">{release.release_stage}</span>
        </h3>
        <span className="text-xs text-muted-foreground">
          released <RelativeTime value={release.release_time} />
          {release.builder_name ? <> by {release.builder_name}</> : null}
        </span>
      </div>
      <dl className="mt-2 grid grid-cols-2 gap-3 sm:grid-cols-5">
        <Figure label="Sessions (last 24 h)">
          {formatCount(release.total_sessions_count)}{' '}
          <span className="text-xs font-normal text-muted-foreground">({formatCount(release.sessions_count_in_last_24h)})</span>
        </Figure>
        <Figure label="Crash-free">
          <span className={cn('inline-flex items-center gap-1.5', toneText[tone])} title={label}>
            {formatCrashFreeRate(release.crash_free_rate)}
            <span className="sr-only"> ({label})</span>
            <TrendMark trend={trend} />
          </span>
        </Figure>
        <Figure label="New errors">{formatCount(release.errors_introduced_count)}</Figure>
        <Figure label="Errors seen">{formatCount(release.errors_seen_count)}</Figure>
        <Figure label="Regressions">
          {release.regressions_count > 0 ? <Badge tone="danger">{formatCount(release.regressions_count)}</Badge> : '0'}
        </Figure>
      </dl>
      <div className="mt-2 flex flex-wrap items-center gap-x-4 gap-y-1 text-sm">
        <Link
          to="/projects/$projectId/errors"
          params={{ projectId }}
          search={{ f: toFilterSearch(releaseErrorFilters(release)) }}
          className="font-medium text-accent underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-accent"
        >
          Errors in {release.app_version}
          <span className="sr-only"> ({release.release_stage})</span>
        </Link>
        {release.source_control ? (
          release.source_control.revision_url ? (
            <a
              href={release.source_control.revision_url}
              rel="noreferrer noopener"
              target="_blank"
              className="font-mono text-xs text-muted-foreground underline-offset-2 hover:underline"
            >
              {release.source_control.revision.slice(0, 12)}
            </a>
          ) : (
            <span className="font-mono text-xs text-muted-foreground">{release.source_control.revision.slice(0, 12)}</span>
          )
        ) : null}
      </div>
    </li>
  )
}

/** A project's releases, newest first, optionally in one release stage. */
export function ProjectReleases({
  projectId,
  stage,
  onStageChange,
}: {
  projectId: string
  stage: string | undefined
  onStageChange: (stage: string | undefined) => void
}) {
  const { data: project } = useSuspenseQuery(projectQuery(projectId))
  const query = useSuspenseInfiniteQuery(releasesInfiniteQuery(projectId, stage))
  const releases = query.data.pages.flatMap((page) => page.items)
  const trends = crashFreeTrends(releases)
  const total = query.data.pages[0]?.totalCount ?? releases.length
  return (
    <>
      <ProjectNav projectId={projectId} />
      <PageHeader
        title={`${project.name}: releases`}
        description="Each version in each release stage: adoption, crash-free sessions, new errors and regressions"
        actions={
          <label className="flex items-center gap-2 text-sm">
            <span className="text-muted-foreground">Stage</span>
            <select
              className="rounded-md border border-border bg-surface px-2 py-1 text-sm"
              value={stage ?? ''}
              onChange={(event) => onStageChange(event.target.value === '' ? undefined : event.target.value)}
            >
              <option value="">All stages</option>
              {[...new Set([...project.release_stages, ...(stage ? [stage] : [])])].map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
        }
      />
      {releases.length === 0 ? (
        <NoReleases apiKey={project.api_key} origin={window.location.origin} />
      ) : (
        <Card aria-labelledby="releases-title">
          <h2 id="releases-title" className="sr-only">
            Releases, newest first ({formatCount(total)})
          </h2>
          <ul aria-label="Releases">
            {releases.map((release) => (
              <ReleaseItem key={release.id} projectId={projectId} release={release} trend={trends.get(release.id) ?? null} />
            ))}
          </ul>
          {query.hasNextPage ? (
            <div className="border-t border-border p-3 text-center">
              <Button variant="secondary" disabled={query.isFetchingNextPage} onClick={() => void query.fetchNextPage()}>
                {query.isFetchingNextPage ? 'Loading…' : `Show more (${formatCount(total - releases.length)} left)`}
              </Button>
            </div>
          ) : null}
        </Card>
      )}
    </>
  )
}
