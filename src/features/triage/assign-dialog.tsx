import { Button } from '../../components/ui/button.tsx'
import { Dialog } from '../../components/ui/dialog.tsx'
import { ErrorState } from '../../components/ui/states.tsx'
import { useAssignableCollaborators } from './assignee.tsx'

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
                  align="start" className="w-full"
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
