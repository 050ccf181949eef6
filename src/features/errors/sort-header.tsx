import { ArrowDown, ArrowUp } from 'lucide-react'
import type * as React from 'react'
import type { Direction } from '../../../contract/common.ts'
import type { ErrorSort } from '../../../contract/errors.ts'
import type { ErrorListParams } from '../../api/errors.ts'
import { cn } from '../../lib/cn.ts'

/** What clicking a column header sorts by: the same column again turns the direction round; another starts descending. */
export function nextSort(params: Pick<ErrorListParams, 'sort' | 'direction'>, sort: ErrorSort): { sort: ErrorSort; direction: Direction } {
  if (params.sort !== sort) return { sort, direction: 'desc' }
  return { sort, direction: params.direction === 'desc' ? 'asc' : 'desc' }
}

const DIRECTION_WORDS: Record<ErrorSort, Record<Direction, string>> = {
  last_seen: { desc: 'newest first', asc: 'oldest first' },
  first_seen: { desc: 'newest first', asc: 'oldest first' },
  events: { desc: 'most first', asc: 'fewest first' },
  users: { desc: 'most first', asc: 'fewest first' },
}

/** A column header of the errors list that sorts by its column (the API's sort options); the order lives in the URL. */
export function SortHeader({
  sort,
  params,
  onSortChange,
  title,
  fromLg = false,
  children,
}: {
  sort: ErrorSort
  params: Pick<ErrorListParams, 'sort' | 'direction'>
  onSortChange: (next: { sort: ErrorSort; direction: Direction }) => void
  title?: string
  /** Shown from lg only (a column that narrower screens leave out). */
  fromLg?: boolean
  children: React.ReactNode
}) {
  const active = params.sort === sort
  const Arrow = params.direction === 'desc' ? ArrowDown : ArrowUp
  return (
    <button
      type="button"
      title={title}
      className={cn(
        'items-center justify-end gap-1 rounded px-1 py-1 text-right hover:text-foreground',
        fromLg ? 'hidden lg:flex' : 'inline-flex',
        active && 'text-foreground',
      )}
      onClick={() => onSortChange(nextSort(params, sort))}
    >
      {children}
      {/* The name starts with the visible label; the state follows it in words. */}
      <span className="sr-only">{active ? `, sorted ${DIRECTION_WORDS[sort][params.direction]}` : ', sort by this'}</span>
      {active ? <Arrow aria-hidden="true" className="size-3.5" /> : <span aria-hidden="true" className="size-3.5" />}
    </button>
  )
}
