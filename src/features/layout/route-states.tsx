import { useQueryErrorResetBoundary } from '@tanstack/react-query'
import { Link, notFound, useRouter, type ErrorComponentProps } from '@tanstack/react-router'
import { RotateCw } from 'lucide-react'
import { useEffect } from 'react'
import type * as React from 'react'
import { isApiError } from '../../api/http.ts'
import { Button, buttonVariants } from '../../components/ui/button.tsx'
import { LoadingRegion, Skeleton } from '../../components/ui/skeleton.tsx'
import { ErrorState, NotFoundState } from '../../components/ui/states.tsx'
import { claimReload, isChunkLoadError } from '../../lib/route-chunks.ts'

/** Loader helper: a 404 from the API becomes the route's not-found page instead of an error. */
export async function orNotFound<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise
  } catch (error) {
    if (isApiError(error, 404)) throw notFound()
    throw error
  }
}

/**
 * A route's error page: what failed and a Retry that re-runs the loaders (and fetches the route's
 * code again when that is what failed: the server could not be reached). A route chunk that is
 * gone from a server that answers means a new version was deployed: reload once to get it, and
 * if that did not help, say so with a Reload button instead of reloading in a loop.
 */
export function RouteError({
  error,
  title = 'This page could not be loaded',
  action,
}: ErrorComponentProps & { title?: string; action?: React.ReactNode }) {
  const router = useRouter()
  const queryErrorResetBoundary = useQueryErrorResetBoundary()
  useEffect(() => {
    // Let suspense queries refetch on the next render instead of re-throwing the cached error.
    queryErrorResetBoundary.reset()
  }, [queryErrorResetBoundary])

  useEffect(() => {
    if (isChunkLoadError(error, 'stale') && claimReload(error)) window.location.reload()
  }, [error])

  if (isChunkLoadError(error, 'stale')) {
    return (
      <ErrorState
        className="mx-auto max-w-2xl"
        title="Errata has been updated"
        error={error}
        action={
          <Button size="sm" variant="primary" onClick={() => window.location.reload()}>
            <RotateCw aria-hidden="true" />
            Reload page
          </Button>
        }
      />
    )
  }
  return (
    <ErrorState
      className="mx-auto max-w-2xl"
      title={title}
      error={error}
      onRetry={() => {
        void router.invalidate()
      }}
      action={action}
    />
  )
}

/** A missing resource's page, with a way back: to its project's errors when it had one, else to the organizations. */
export function ResourceNotFound({ title, projectId, children }: { title: string; projectId?: string; children?: React.ReactNode }) {
  return (
    <NotFoundState
      title={title}
      action={
        projectId ? (
          <Link to="/projects/$projectId/errors" params={{ projectId }} className={buttonVariants({ variant: 'secondary' })}>
            Back to the project’s errors
          </Link>
        ) : (
          <Link to="/organizations" className={buttonVariants({ variant: 'secondary' })}>
            Back to organizations
          </Link>
        )
      }
    >
      {children}
    </NotFoundState>
  )
}

/** The generic page skeleton: a title bar and a few blocks. */
export function PageSkeleton({ label, rows = 4 }: { label: string; rows?: number }) {
  return (
    <LoadingRegion label={label} className="flex flex-col gap-4">
      <Skeleton className="h-7 w-1/3" />
      <Skeleton className="h-4 w-1/2" />
      {Array.from({ length: rows }, (_, index) => (
        <Skeleton key={index} className="h-16" />
      ))}
    </LoadingRegion>
  )
}

/** The not-found page of a route under /organizations/$organizationId. */
export function OrganizationNotFound({ organizationId }: { organizationId: string }) {
  return (
    <ResourceNotFound title="Organization not found">
      No organization with id <code className="font-mono break-all">{organizationId}</code> exists,
      or you are not a member of it.
    </ResourceNotFound>
  )
}

/** The not-found page of a route under /projects/$projectId. */
export function ProjectNotFound({ projectId }: { projectId: string }) {
  return (
    <ResourceNotFound title="Project not found">
      No project with id <code className="font-mono break-all">{projectId}</code> exists, or you
      cannot see it.
    </ResourceNotFound>
  )
}
