import { Link } from '@tanstack/react-router'
import { Building2, ChevronRight } from 'lucide-react'
import type { Organization } from '../../../contract/organizations.ts'
import { EmptyState } from '../../components/ui/states.tsx'
import { RelativeTime } from '../../components/ui/relative-time.tsx'

export function OrganizationList({ organizations }: { organizations: readonly Organization[] }) {
  if (organizations.length === 0) {
    return (
      <EmptyState title="No organizations yet">
        Create one below: an organization holds your projects and the people who work on them.
      </EmptyState>
    )
  }
  return (
    <ul aria-label="Organizations" className="divide-y divide-border overflow-hidden rounded-lg border border-border bg-surface">
      {organizations.map((organization) => (
        <li key={organization.id}>
          <Link
            to="/organizations/$organizationId"
            params={{ organizationId: organization.id }}
            className="flex items-center gap-3 px-4 py-3 hover:bg-surface-muted focus-visible:-outline-offset-2"
          >
            <Building2 aria-hidden="true" className="size-5 shrink-0 text-muted-foreground" />
            <span className="min-w-0 flex-1">
              <span className="block truncate font-medium">{organization.name}</span>
              <span className="block truncate text-xs text-muted-foreground">
                {organization.slug} · created <RelativeTime value={organization.created_at} />
              </span>
            </span>
            <ChevronRight aria-hidden="true" className="size-4 shrink-0 text-muted-foreground" />
          </Link>
        </li>
      ))}
    </ul>
  )
}
