import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { useState } from 'react'
import type { Filters, PivotFieldId } from '../../../contract/filters.ts'
import { pivotValuesQuery } from '../../api/pivots.ts'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { Skeleton } from '../../components/ui/skeleton.tsx'
import { EmptyState, ErrorState } from '../../components/ui/states.tsx'
import { Tabs } from '../../components/ui/tabs.tsx'
import { PivotValueRow } from './pivot-value-row.tsx'
import { ERROR_PIVOT_FIELDS, type ErrorPivotField } from './pivot-fields.ts'
import { errorFilterSearch, pivotFieldName } from './to-pivot-filter.ts'

const TOP_VALUES = 5

// Short names keep the six tabs on one row in the side panel and on a phone; each list of values
// is labelled with the field's full name.
const TAB_LABELS: Partial<Record<PivotFieldId, string>> = {
  'app.release_stage': 'Stage',
  'app.version': 'Version',
  'user.id': 'Users',
  'device.os_name': 'OS',
  'device.browser_name': 'Browser',
  context: 'Context',
}
const tabLabel = (pivotId: PivotFieldId) => TAB_LABELS[pivotId] ?? pivotFieldName(pivotId)
const LABELS = ERROR_PIVOT_FIELDS.map(tabLabel)

function PivotTopValues({
  projectId,
  errorId,
  pivotId,
  filters,
}: {
  projectId: string
  errorId: string
  pivotId: PivotFieldId
  filters: Filters
}) {
  const query = useQuery(pivotValuesQuery(projectId, errorId, pivotId, { filters, perPage: TOP_VALUES }))
  const name = pivotFieldName(pivotId)
  if (query.isPending) {
    return (
      <div role="status" className="flex flex-col gap-3 py-1">
        <span className="sr-only">Loading {name} values</span>
        {Array.from({ length: 3 }, (_, index) => (
          <Skeleton key={index} className="h-7 w-full" />
        ))}
      </div>
    )
  }
  if (query.isError) {
    return <ErrorState title={`Could not load ${name} values`} error={query.error} onRetry={() => void query.refetch()} />
  }
  const { items } = query.data
  if (items.length === 0) {
    return <EmptyState title={`No ${name} values`}>None of this error’s events in this range have one.</EmptyState>
  }
  return (
    <div>
      <ul aria-label={`Top ${name} values`} className="divide-y divide-border">
        {items.map((value) => (
          <li key={value.event_field_value}>
            <PivotValueRow projectId={projectId} errorId={errorId} pivotId={pivotId} value={value} filters={filters} />
          </li>
        ))}
      </ul>
      {/* This error's values, not the project's: "who is affected by this crash" must not list everyone. */}
      <Link
        to="/projects/$projectId/errors/$errorId/pivots/$fieldId"
        params={{ projectId, errorId, fieldId: pivotId }}
        search={{ f: errorFilterSearch(filters) }}
        className="mt-2 inline-block rounded text-xs text-accent underline underline-offset-2"
      >
        See all values of {name} for this error
      </Link>
    </div>
  )
}

/**
 * Who and what an error affects: the top values of a few fields among its events, each with its
 * share. Clicking a value narrows this error's page to it; "See all" opens the pivot page.
 */
export function ErrorPivotsPanel({
  projectId,
  errorId,
  filters,
  pivot,
  onPivotChange,
}: {
  projectId: string
  errorId: string
  filters: Filters
  /** The open tab, when the caller keeps it (in the URL); else the panel keeps its own. */
  pivot?: ErrorPivotField
  onPivotChange?: (next: ErrorPivotField) => void
}) {
  const [localPivot, setLocalPivot] = useState<ErrorPivotField>(ERROR_PIVOT_FIELDS[0])
  const current = onPivotChange ? (pivot ?? ERROR_PIVOT_FIELDS[0]) : localPivot
  const selected = tabLabel(current)
  const setSelected = (label: string) => {
    const next = ERROR_PIVOT_FIELDS[LABELS.indexOf(label)] ?? ERROR_PIVOT_FIELDS[0]
    ;(onPivotChange ?? setLocalPivot)(next)
  }
  return (
    <Card aria-label="Pivots">
      <CardHeader compact>
        <CardTitle>Pivots</CardTitle>
      </CardHeader>
      <CardContent>
        <Tabs label="Pivot fields" tabs={LABELS} selected={selected} onSelect={setSelected} // On phones a little smaller and sharing the width: six tabs in about 20rem.
          dense
          listClassName="[&>[role=tab]]:px-2 max-sm:[&>[role=tab]]:flex-auto max-sm:[&>[role=tab]]:px-1 max-sm:[&>[role=tab]]:text-[0.8125rem]">
          {(tab) => {
            const pivotId = ERROR_PIVOT_FIELDS[LABELS.indexOf(tab)] ?? ERROR_PIVOT_FIELDS[0]!
            return <PivotTopValues projectId={projectId} errorId={errorId} pivotId={pivotId} filters={filters} />
          }}
        </Tabs>
      </CardContent>
    </Card>
  )
}
