import type * as React from 'react'
import { cn } from '../../lib/cn.ts'
import { useDocumentTitle } from '../../lib/use-document-title.ts'

const PAGE_HEADER_SPACING = { page: 'mb-6 items-end', none: 'items-end', compact: 'mb-3 items-center' } as const

export function PageHeader({
  title,
  description,
  actions,
  spacing = 'page',
  className,
}: {
  title: React.ReactNode
  description?: React.ReactNode
  actions?: React.ReactNode
  /** `none`: in a column whose gap spaces it; `compact`: the title on one line with its controls. */
  spacing?: keyof typeof PAGE_HEADER_SPACING
  className?: string
}) {
  useDocumentTitle(typeof title === 'string' ? title : null)
  return (
    <div className={cn('flex flex-wrap justify-between gap-3', PAGE_HEADER_SPACING[spacing], className)}>
      <div className="min-w-0">
        <h1 className="text-xl font-semibold tracking-tight [overflow-wrap:anywhere]">{title}</h1>
        {description ? <div className="mt-1 text-sm text-muted-foreground">{description}</div> : null}
      </div>
      {actions ? <div className="flex flex-wrap items-center gap-2">{actions}</div> : null}
    </div>
  )
}
