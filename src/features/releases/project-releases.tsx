import { useQueries, useSuspenseInfiniteQuery, useSuspenseQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { ArrowDownRight, ArrowRight, ArrowUpRight, Rocket } from 'lucide-react'
import type { Release } from '../../../contract/releases.ts'
import { projectQuery } from '../../api/projects.ts'
import { releasesInfiniteQuery } from '../../api/releases.ts'
import { stabilityQuery } from '../../api/stability.ts'
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
import { adoptionShare, compareWithPrevious, formatShare, releaseErrorFilters, type Comparison, type Direction } from './to-release-view.ts'

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

const directionIcon = { up: ArrowUpRight, down: ArrowDownRight, same: ArrowRight } as const

/** A change from the previous version, in words beside the arrow: the colour is never the only signal. */
function Change({ direction, words, good }: { direction: Direction; words: string; good: Direction }) {
  const Icon = directionIcon[direction]
  const tone = direction === 'same' ? 'text-muted-foreground' : direction === good ? 'text-success' : 'text-danger'
  return (
    <span className={cn('mt-0.5 flex items-center gap-0.5 text-xs font-normal', tone)}>
      <Icon aria-hidden="true" className="size-3.5 shrink-0" />
      {words}
    </span>
  )
}

function crashFreeWords(comparison: Comparison): { direction: Direction; words: string } | null {
  const { crashFree, previousVersion } = comparison
  if (!crashFree) return null
  if (crashFree.direction === 'same') return { direction: 'same', words: `same as ${previousVersion}` }
  return { direction: crashFree.direction, words: `${crashFree.direction} ${crashFree.points.toFixed(1)} points from ${previousVersion}` }
}

function newErrorsWords({ newErrors, previousVersion }: Comparison): { direction: Direction; words: string } {
  if (newErrors.direction === 'same') return { direction: 'same', words: `as many as ${previousVersion}` }
  return { direction: newErrors.direction, words: `${formatCount(newErrors.count)} ${newErrors.direction === 'up' ? 'more' : 'fewer'} than ${previousVersion}` }
}

/** A figure with the time window it covers beside its name. */
function Figure({ label, window, children }: { label: string; window: string; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-muted-foreground">
        {label} <span className="whitespace-nowrap">· {window}</span>
      </dt>
      <dd className="mt-0.5 text-sm font-medium tabular-nums">{children}</dd>
    </div>
  )
}

/** One release: version, stage and when, its figures, build details and the way to its errors. */
function ReleaseItem({
  projectId,
  release,
  comparison,
  stageSessions,
}: {
  projectId: string
  release: Release
  /** Against the previous version of the stage; null for its oldest, undefined while older versions are still to load. */
  comparison: Comparison | null | undefined
  /** All sessions of the release's stage in the last 24 hours; undefined while being counted or when that failed. */
  stageSessions: number | undefined
}) {
  const share = stageSessions === undefined ? undefined : adoptionShare(release.sessions_count_in_last_24h, stageSessions)
  const crashFree = comparison ? crashFreeWords(comparison) : null
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
      <dl className="mt-2 grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6">
        <Figure label="Adoption" window="last 24 hours">
          {share === undefined ? '…' : share === null ? '—' : formatShare(share)}
          <span className="block text-xs font-normal text-muted-foreground">
            {share === null ? `no ${release.release_stage} sessions` : `of ${release.release_stage} sessions`} ·{' '}
            {formatCount(release.sessions_count_in_last_24h)}
          </span>
        </Figure>
        <Figure label="Sessions" window="since first seen">
          {formatCount(release.total_sessions_count)}
        </Figure>
        <Figure label="Crash-free" window="since first seen">
          <span className={cn('inline-flex items-center gap-1.5', toneText[tone])} title={label}>
            {formatCrashFreeRate(release.crash_free_rate)}
            <span className="sr-only"> ({label})</span>
          </span>
          {crashFree ? <Change direction={crashFree.direction} words={crashFree.words} good="up" /> : null}
        </Figure>
        <Figure label="New errors" window="since first seen">
          {formatCount(release.errors_introduced_count)}
          {comparison ? <Change {...newErrorsWords(comparison)} good="down" /> : null}
        </Figure>
        <Figure label="Errors seen" window="since first seen">
          {formatCount(release.errors_seen_count)}
        </Figure>
        <Figure label="Regressions" window="since first seen">
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
  const comparisons = compareWithPrevious(releases)
  // Each stage's sessions of the last 24 hours, the whole of which a release's adoption is a share.
  const stages = [...new Set(releases.map((release) => release.release_stage))]
  const stageTotals = useQueries({
    queries: stages.map((s) =>
      stabilityQuery(projectId, { 'event.since': [{ type: 'eq', value: '24h' }], 'app.release_stage': [{ type: 'eq', value: s }] }),
    ),
  })
  const stageSessions = new Map(stages.map((s, i) => [s, stageTotals[i]?.data?.total.sessions]))
  const lastLoaded = releases[releases.length - 1]
  const total = query.data.pages[0]?.totalCount ?? releases.length
  return (
    <>
      <ProjectNav projectId={projectId} />
      <PageHeader
        title={`${project.name}: releases`}
        description="Each release stage’s versions, newest first, each compared with the version before it"
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
            Releases by stage, newest version first ({formatCount(total)})
          </h2>
          <ul aria-label="Releases">
            {releases.map((release) => (
              <ReleaseItem
                key={release.id}
                projectId={projectId}
                release={release}
                // The last loaded release of a stage may have its previous version on the next page.
                comparison={query.hasNextPage && comparisons.get(release.id) === null && release.release_stage === lastLoaded?.release_stage ? undefined : comparisons.get(release.id)}
                stageSessions={stageSessions.get(release.release_stage)}
              />
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
