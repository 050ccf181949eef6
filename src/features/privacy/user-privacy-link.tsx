import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { ShieldCheck } from 'lucide-react'
import type * as React from 'react'
import { projectQuery } from '../../api/projects.ts'
import { cn } from '../../lib/cn.ts'
import { useIsProjectAdmin } from '../collaborators/use-is-admin.ts'
import { personSearch } from './to-privacy-selection.ts'

/**
 * "Export or delete this user's data": the organization's privacy page with the user prefilled
 * (their id, else their email). For admins, who alone can act there; nothing for others or for
 * events without a user.
 */
export function UserPrivacyLink({
  projectId,
  user,
  small = false,
  className,
  label,
  children = 'Export or delete this user’s data',
}: {
  projectId: string
  user: { id?: string | null; email?: string | null }
  /** `small`: in a line of small text (text-xs). */
  small?: boolean
  className?: string
  /** The link's accessible name, when its words alone do not say whose data. */
  label?: string
  children?: React.ReactNode
}) {
  const isAdmin = useIsProjectAdmin(projectId)
  const organizationId = useQuery(projectQuery(projectId)).data?.organization_id
  const f = personSearch(user)
  if (!isAdmin || !organizationId || !f) return null
  return (
    <Link
      to="/organizations/$organizationId/privacy"
      params={{ organizationId }}
      search={{ f }}
      aria-label={label}
      className={cn('inline-flex items-center gap-1 rounded text-accent hover:underline', small ? 'text-xs' : 'text-sm', className)}
    >
      <ShieldCheck aria-hidden="true" className="size-3.5 shrink-0" />
      {children}
    </Link>
  )
}
