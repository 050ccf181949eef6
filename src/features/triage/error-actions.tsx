import { useMutation } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import { ArrowRight, Ban, BellOff, Check, EyeOff, Link2, Link2Off, RotateCcw, Trash2, Undo2 } from 'lucide-react'
import type * as React from 'react'
import { useEffect, useState } from 'react'
import { changesStatus, type StatusOperation } from '../../../contract/error-status.ts'
import type { ErrorGroup, ErrorOperation } from '../../../contract/errors.ts'
import type { Filters } from '../../../contract/filters.ts'
import { errorOperationMutation } from '../../api/errors.ts'
import { Button, buttonVariants } from '../../components/ui/button.tsx'
import { announce } from '../../lib/announce.ts'
import { whenIdle } from '../../lib/lazy-component.tsx'
import { eventScopedFilters } from '../filters/to-filter-search.ts'
import { errorFilterSearch } from '../pivots/to-pivot-filter.ts'
import { useNextError } from './use-next-error.ts'
import { ConfirmDialog } from '../../components/ui/dialog.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { AssignMenu } from './assign-menu.tsx'
import { assigneeName, useAssignableCollaborators } from './assignee.tsx'
import { useShortcuts } from './keyboard-shortcuts.ts'
import { LinkIssueDialog } from './link-issue-dialog.tsx'
import { SeverityMenu } from './severity-menu.tsx'
import { preloadTriageParts, ShortcutsHelp, SnoozeDialog } from './lazy-dialogs.tsx'
import { ShortcutsHelpButton } from './shortcuts-help-button.tsx'
import { useIsProjectAdmin } from '../collaborators/use-is-admin.ts'
import { useTriageOperations } from './use-triage-operations.ts'

/**
 * The error page's triage bar: fix, snooze, ignore, reopen, assign, severity, discard (or
 * undiscard), link (or unlink) an issue and (admins) delete, with their keyboard shortcuts. Status changes show at once and roll back if the server refuses.
 */
export function ErrorActions({ projectId, error, filters = {} }: { projectId: string; error: ErrorGroup; filters?: Filters }) {
  const triage = useTriageOperations(projectId)
  const deletion = useMutation(errorOperationMutation(projectId))
  const navigate = useNavigate()
  const isAdmin = useIsProjectAdmin(projectId)
  const { byId } = useAssignableCollaborators(projectId)
  const [snoozeOpen, setSnoozeOpen] = useState(false)
  const [assignOpen, setAssignOpen] = useState(false)
  const [helpOpen, setHelpOpen] = useState(false)
  const [deleteOpen, setDeleteOpen] = useState(false)
  const [linkOpen, setLinkOpen] = useState(false)
  useEffect(() => whenIdle(() => preloadTriageParts({ bulk: false })), [])

  const run = (op: ErrorOperation) => triage.run([error.id], op)

  const next = useNextError(projectId, error.id, filters)
  // The next error opens with the same event filters, as the list's rows open errors.
  const nextSearch = errorFilterSearch(eventScopedFilters(filters))
  useShortcuts({
    n: () => {
      if (next) void navigate({ to: '/projects/$projectId/errors/$errorId', params: { projectId, errorId: next.id }, search: { f: nextSearch } })
    },
    f: () => run({ operation: 'fix' }),
    s: () => setSnoozeOpen(true),
    i: () => run({ operation: 'ignore' }),
    a: () => setAssignOpen(true),
    '?': () => setHelpOpen(true),
  })

  const assignee = assigneeName(error.assigned_collaborator_id, byId)

  // Every status button keeps its place whatever the status: the one for the current status is
  // disabled rather than hidden, so a click or a key never lands on a button that moved under it.
  // Which ones are disabled is the contract's status rule: an operation that changes nothing.
  const statusButton = (
    label: string,
    icon: React.ReactNode,
    op: Exclude<StatusOperation, { operation: 'snooze' }>,
    extra: { variant?: 'primary'; shortcut?: string } = {},
  ) => (
    <Button
      variant={extra.variant}
      disabled={!changesStatus(error.status, op.operation)}
      title={changesStatus(error.status, op.operation) ? undefined : `The error is ${error.status}`}
      onClick={() => run(op)}
      aria-keyshortcuts={extra.shortcut}
    >
      {icon}
      {label}
    </Button>
  )

  return (
    <div role="toolbar" aria-label="Error actions" className="flex flex-wrap items-center gap-2">
      {statusButton('Fix', <Check aria-hidden="true" />, { operation: 'fix' }, { variant: 'primary', shortcut: 'f' })}
      <Button onClick={() => setSnoozeOpen(true)} aria-keyshortcuts="s">
        <BellOff aria-hidden="true" />
        Snooze…
      </Button>
      {statusButton('Ignore', <EyeOff aria-hidden="true" />, { operation: 'ignore' }, { shortcut: 'i' })}
      {statusButton('Reopen', <RotateCcw aria-hidden="true" />, { operation: 'open' })}
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
      {error.discarded ? (
        <Button variant="ghost" onClick={() => run({ operation: 'undiscard' })} title="Store its new events again">
          <Undo2 aria-hidden="true" />
          Undiscard
        </Button>
      ) : (
        <Button variant="ghost" onClick={() => run({ operation: 'discard' })} title="Count its new events without storing them">
          <Ban aria-hidden="true" />
          Discard
        </Button>
      )}
      {error.linked_issues.length > 0 ? (
        <Button variant="ghost" onClick={() => run({ operation: 'unlink_issue' })}>
          <Link2Off aria-hidden="true" />
          Unlink issue
        </Button>
      ) : (
        <Button variant="ghost" onClick={() => setLinkOpen(true)}>
          <Link2 aria-hidden="true" />
          Link issue…
        </Button>
      )}
      {isAdmin ? (
        <Button variant="ghost" tone="danger" onClick={() => setDeleteOpen(true)}>
          <Trash2 aria-hidden="true" />
          Delete
        </Button>
      ) : null}
      <span className="ml-auto flex items-center gap-2">
        {next ? (
          <Link
            to="/projects/$projectId/errors/$errorId"
            params={{ projectId, errorId: next.id }}
            search={{ f: nextSearch }}
            className={buttonVariants({ variant: error.status === 'open' ? 'ghost' : 'secondary' })}
            aria-keyshortcuts="n"
          >
            Next error
            <ArrowRight aria-hidden="true" />
          </Link>
        ) : null}
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
      <LinkIssueDialog
        open={linkOpen}
        onClose={() => setLinkOpen(false)}
        onLink={(url) => {
          setLinkOpen(false)
          run({ operation: 'link_issue', issue_url: url })
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
            {
              onSuccess: () => {
                announce('Error deleted')
                void navigate({ to: '/projects/$projectId/errors', params: { projectId }, replace: true })
              },
            },
          )
        }
      >
        {deletion.error ? <FormErrors error={deletion.error} /> : null}
      </ConfirmDialog>
    </div>
  )
}
