import { AlertTriangle, RotateCw, SearchX } from 'lucide-react'
import type * as React from 'react'
import { cn } from '../../lib/cn.ts'
import { errorMessages } from '../../lib/error-messages.ts'
import { Button } from './button.tsx'
import { useDocumentTitle } from '../../lib/use-document-title.ts'

/** Something failed: say what, offer a retry. */
export function ErrorState({
  title = 'Something went wrong',
  error,
  onRetry,
  action,
  className,
}: {
  title?: string
  error: unknown
  onRetry?: () => void
  /** Another way out beside Retry, e.g. back to the first page when a page link has gone stale. */
  action?: React.ReactNode
  className?: string
}) {
  return (
    <div role="alert" className={cn('rounded-lg border border-danger/30 bg-danger-soft/40 p-4', className)}>
      <div className="flex items-start gap-3">
        <AlertTriangle aria-hidden="true" className="mt-0.5 size-5 shrink-0 text-danger" />
        <div className="min-w-0 flex-1">
          <p className="font-medium text-foreground">{title}</p>
          <ul className="mt-1 text-sm break-words text-muted-foreground">
            {errorMessages(error).map((message, index) => (
              <li key={index}>{message}</li>
            ))}
          </ul>
          {onRetry || action ? (
            <div className="mt-3 flex flex-wrap gap-2">
              {onRetry ? (
                <Button size="sm" onClick={onRetry}>
                  <RotateCw aria-hidden="true" />
                  Retry
                </Button>
              ) : null}
              {action}
            </div>
          ) : null}
        </div>
      </div>
    </div>
  )
}

/** A page or resource that does not exist (or that this user may not see). */
export function NotFoundState({
  title,
  children,
  action,
}: {
  title: string
  children?: React.ReactNode
  action?: React.ReactNode
}) {
  useDocumentTitle(title)
  return (
    <div className="mx-auto flex max-w-md flex-col items-center gap-3 py-16 text-center">
      <SearchX aria-hidden="true" className="size-10 text-muted-foreground" />
      <h1 className="text-xl font-semibold">{title}</h1>
      {children ? <div className="text-sm text-muted-foreground">{children}</div> : null}
      {action}
    </div>
  )
}

export function EmptyState({
  title,
  children,
  className,
}: {
  title: string
  children?: React.ReactNode
  className?: string
}) {
  return (
    <div className={cn('rounded-lg border border-dashed border-border p-6 text-center', className)}>
      <p className="font-medium">{title}</p>
      {children ? <div className="mt-1 text-sm text-muted-foreground">{children}</div> : null}
    </div>
  )
}
