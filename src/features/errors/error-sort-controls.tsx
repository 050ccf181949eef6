import { ArrowDownWideNarrow, ArrowUpNarrowWide } from 'lucide-react'
import type { Direction } from '../../../contract/common.ts'
import { ERROR_SORTS, type ErrorSort } from '../../../contract/errors.ts'
import { Button } from '../../components/ui/button.tsx'
import { Label, Select } from '../../components/ui/input.tsx'

export const SORT_LABELS: Record<ErrorSort, string> = {
  last_seen: 'Last seen',
  first_seen: 'First seen',
  events: 'Events',
  users: 'Users',
}

const isErrorSort = (value: string): value is ErrorSort => (ERROR_SORTS as readonly string[]).includes(value)

export function ErrorSortControls({
  sort,
  direction,
  onChange,
}: {
  sort: ErrorSort
  direction: Direction
  onChange: (next: { sort: ErrorSort; direction: Direction }) => void
}) {
  const descending = direction === 'desc'
  return (
    <div className="flex items-center gap-2">
      <Label htmlFor="errors-sort" quiet>
        Sort by
      </Label>
      <Select
        id="errors-sort"
        size="sm" fullWidth={false} className="w-auto"
        value={sort}
        onChange={(event) => {
          if (isErrorSort(event.target.value)) onChange({ sort: event.target.value, direction })
        }}
      >
        {ERROR_SORTS.map((value) => (
          <option key={value} value={value}>
            {SORT_LABELS[value]}
          </option>
        ))}
      </Select>
      <Button
        size="toolbar"
        aria-label={descending ? 'Descending order; switch to ascending' : 'Ascending order; switch to descending'}
        onClick={() => onChange({ sort, direction: descending ? 'asc' : 'desc' })}
      >
        {descending ? <ArrowDownWideNarrow aria-hidden="true" /> : <ArrowUpNarrowWide aria-hidden="true" />}
        {descending ? 'Descending' : 'Ascending'}
      </Button>
    </div>
  )
}
