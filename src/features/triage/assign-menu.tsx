import { UserRound } from 'lucide-react'
import type { ButtonProps } from '../../components/ui/button.tsx'
import { useAssignableCollaborators } from './assignee.tsx'
import { MenuButton, type MenuItem } from './menu.tsx'

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
