import { useQuery } from '@tanstack/react-query'
import { UserRound } from 'lucide-react'
import { useMemo } from 'react'
import type { Collaborator } from '../../../contract/collaborators.ts'
import { projectCollaboratorsQuery } from '../../api/collaborators.ts'
import { Button, type ButtonProps } from '../../components/ui/button.tsx'
import { Dialog } from '../../components/ui/dialog.tsx'
import { ErrorState } from '../../components/ui/states.tsx'
import { MenuButton, type MenuItem } from './menu.tsx'

/** People an error of this project can be assigned to (pending invitations have no account yet). */
export function useAssignableCollaborators(projectId: string) {
  const query = useQuery(projectCollaboratorsQuery(projectId))
  const collaborators = useMemo(
    () => (query.data ?? []).filter((c) => !c.pending_invitation),
    [query.data],
  )
  const byId = useMemo(() => new Map(collaborators.map((c) => [c.id, c])), [collaborators])
  return { query, collaborators, byId }
}

/** The assignee's name; "someone" when they are no longer a collaborator we can see. */
export function assigneeName(id: string | null, byId: ReadonlyMap<string, Collaborator>): string | null {
  if (!id) return null
  return byId.get(id)?.name ?? 'someone'
}

export function AssigneeLabel({ name, className }: { name: string | null; className?: string }) {
  if (!name) return null
  return (
    <span className={className ?? 'inline-flex min-w-0 items-center gap-1 text-xs text-muted-foreground'}>
      <UserRound aria-hidden="true" className="size-3.5 shrink-0" />
      <span className="sr-only">Assigned to </span>
      <span className="truncate">{name}</span>
    </span>
  )
}

/** "Assign" menu: every project collaborator, plus Unassign. */
export function AssignMenu({
  projectId,
  assignedId,
  onAssign,
  open,
  onOpenChange,
  label = 'Assign',
  buttonProps,
}: {
  projectId: string
  /** The current assignee, checked in the menu; undefined for a mixed selection. */
  assignedId?: string | null
  onAssign: (collaboratorId: string | null) => void
  open?: boolean
  onOpenChange?: (open: boolean) => void
  label?: React.ReactNode
  buttonProps?: Omit<ButtonProps, 'onClick' | 'children'>
}) {
  const { query, collaborators } = useAssignableCollaborators(projectId)
  const items: MenuItem[] = query.isError
    ? [{ id: 'error', label: 'Could not load collaborators', disabled: true, onSelect: () => {} }]
    : query.isPending
      ? [{ id: 'loading', label: 'Loading collaborators…', disabled: true, onSelect: () => {} }]
      : [
          {
            id: 'unassign',
            label: 'Unassign',
            checked: assignedId === undefined ? undefined : assignedId === null,
            onSelect: () => onAssign(null),
          },
          ...collaborators.map((c) => ({
            id: c.id,
            label: c.name || c.email,
            checked: assignedId === undefined ? undefined : assignedId === c.id,
            onSelect: () => onAssign(c.id),
          })),
        ]
  return (
    <MenuButton
      menuLabel="Assign to"
      items={items}
      open={open}
      onOpenChange={onOpenChange}
      buttonProps={buttonProps}
    >
      <UserRound aria-hidden="true" />
      {label}
    </MenuButton>
  )
}

/** The same choice as AssignMenu in a dialog, for the list's `a` shortcut on the focused row. */
export function AssignDialog({
  projectId,
  open,
  title,
  assignedId,
  onClose,
  onAssign,
}: {
  projectId: string
  open: boolean
  title: string
  assignedId: string | null
  onClose: () => void
  onAssign: (collaboratorId: string | null) => void
}) {
  const { query, collaborators } = useAssignableCollaborators(projectId)
  const choose = (id: string | null) => {
    onClose()
    onAssign(id)
  }
  return (
    <Dialog open={open} onClose={onClose} title={title}>
      {query.isPending ? (
        <p role="status" className="text-sm text-muted-foreground">
          Loading collaborators…
        </p>
      ) : query.isError ? (
        <ErrorState title="Could not load collaborators" error={query.error} onRetry={() => void query.refetch()} />
      ) : (
        <ul aria-label="Collaborators" className="flex flex-col gap-1">
          {[{ id: null, label: 'Unassign' }, ...collaborators.map((c) => ({ id: c.id, label: c.name || c.email }))].map(
            (option, index) => (
              <li key={option.id ?? 'unassign'}>
                <Button
                  variant="ghost"
                  className="w-full justify-start"
                  aria-pressed={assignedId === option.id}
                  data-autofocus={index === 0 ? '' : undefined}
                  onClick={() => choose(option.id)}
                >
                  {option.label}
                </Button>
              </li>
            ),
          )}
        </ul>
      )}
    </Dialog>
  )
}
