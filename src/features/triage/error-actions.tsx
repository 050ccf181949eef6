import { useMutation } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { BellOff, Check, EyeOff, RotateCcw, Trash2 } from 'lucide-react'
import { useState } from 'react'
import type { ErrorGroup, ErrorOperation } from '../../../contract/errors.ts'
import { errorOperationMutation } from '../../api/errors.ts'
import { Button } from '../../components/ui/button.tsx'
import { ConfirmDialog } from '../../components/ui/dialog.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { AssignMenu, assigneeName, useAssignableCollaborators } from './assign-menu.tsx'
import { useShortcuts } from './keyboard-shortcuts.ts'
import { SeverityMenu } from './severity-menu.tsx'
import { ShortcutsHelp, ShortcutsHelpButton } from './shortcuts-help.tsx'
import { SnoozeDialog } from './snooze-dialog.tsx'
import { useIsProjectAdmin } from '../collaborators/use-is-admin.ts'

/**
 * The error page's triage bar: fix, snooze, ignore, reopen, assign, severity and (admins) delete,
 * with their keyboard shortcuts. Status changes show at once and roll back if the server refuses.
 */
export function ErrorActions({ projectId, error }: { projectId: string; error: ErrorGroup }) {
  const operation = useMutation(errorOperationMutation(projectId))
  const deletion = useMutation(errorOperationMutation(projectId))
  const navigate = useNavigate()
  const isAdmin = useIsProjectAdmin(projectId)
  const { byId } = useAssignableCollaborators(projectId)
  const [snoozeOpen, setSnoozeOpen] = useState(false)
  const [assignOpen, setAssignOpen] = useState(false)
  const [helpOpen, setHelpOpen] = useState(false)
  const [deleteOpen, setDeleteOpen] = useState(false)

  const run = (op: ErrorOperation) => operation.mutate({ errorId: error.id, operation: op })

  useShortcuts({
    f: () => run({ operation: 'fix' }),
    s: () => setSnoozeOpen(true),
    i: () => run({ operation: 'ignore' }),
    a: () => setAssignOpen(true),
    '?': () => setHelpOpen(true),
  })

  const assignee = assigneeName(error.assigned_collaborator_id, byId)

  return (
    <div role="toolbar" aria-label="Error actions" className="flex flex-wrap items-center gap-2">
      {error.status !== 'fixed' ? (
        <Button variant="primary" onClick={() => run({ operation: 'fix' })} aria-keyshortcuts="f">
          <Check aria-hidden="true" />
          Fix
        </Button>
      ) : null}
      <Button onClick={() => setSnoozeOpen(true)} aria-keyshortcuts="s">
        <BellOff aria-hidden="true" />
        Snooze…
      </Button>
      {error.status !== 'ignored' ? (
        <Button onClick={() => run({ operation: 'ignore' })} aria-keyshortcuts="i">
          <EyeOff aria-hidden="true" />
          Ignore
        </Button>
      ) : null}
      {error.status !== 'open' ? (
        <Button onClick={() => run({ operation: 'open' })}>
          <RotateCcw aria-hidden="true" />
          Reopen
        </Button>
      ) : null}
      <AssignMenu
        projectId={projectId}
        assignedId={error.assigned_collaborator_id}
        open={assignOpen}
        onOpenChange={setAssignOpen}
        label={assignee ? `Assigned to ${assignee}` : 'Assign'}
        buttonProps={{ 'aria-keyshortcuts': 'a' }}
        onAssign={(id) => run({ operation: 'assign', assigned_collaborator_id: id })}
      />
      <SeverityMenu severity={error.severity} onChange={(severity) => run({ operation: 'override_severity', severity })} />
      {isAdmin ? (
        <Button variant="ghost" className="text-danger" onClick={() => setDeleteOpen(true)}>
          <Trash2 aria-hidden="true" />
          Delete
        </Button>
      ) : null}
      <span className="ml-auto">
        <ShortcutsHelpButton onClick={() => setHelpOpen(true)} />
      </span>

      <SnoozeDialog
        open={snoozeOpen}
        onClose={() => setSnoozeOpen(false)}
        onSnooze={(rules) => {
          setSnoozeOpen(false)
          run({ operation: 'snooze', reopen_rules: rules })
        }}
      />
      <ShortcutsHelp open={helpOpen} onClose={() => setHelpOpen(false)} />
      <ConfirmDialog
        open={deleteOpen}
        title="Delete this error?"
        description="Its events go with it. This cannot be undone; a new event of the same kind starts a new error."
        confirmLabel="Delete error"
        destructive
        pending={deletion.isPending}
        onCancel={() => {
          setDeleteOpen(false)
          deletion.reset()
        }}
        onConfirm={() =>
          deletion.mutate(
            { errorId: error.id, operation: { operation: 'delete' } },
            // Replace: Back must not return to the deleted error's page.
            { onSuccess: () => void navigate({ to: '/projects/$projectId/errors', params: { projectId }, replace: true }) },
          )
        }
      >
        {deletion.error ? <FormErrors error={deletion.error} /> : null}
      </ConfirmDialog>
    </div>
  )
}
