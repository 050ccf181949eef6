import { Skeleton } from '../../components/ui/skeleton.tsx'

// Apart from error-list.tsx so that the route's pending view does not pull the list (and its
// charts) into the first page's bundle.
export function ErrorListSkeleton() {
  return (
    <div role="status" className="overflow-hidden rounded-lg border border-border bg-surface">
      <span className="sr-only">Loading errors</span>
      {Array.from({ length: 8 }, (_, index) => (
        <div key={index} className="flex flex-col gap-2 border-b border-border px-4 py-3">
          <Skeleton className="h-4 w-1/4" />
          <Skeleton className="h-4 w-3/4" />
        </div>
      ))}
    </div>
  )
}
