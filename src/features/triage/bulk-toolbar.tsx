import { Ban, BellOff, Check, EyeOff, Link2, Merge, RotateCcw, Undo2, X } from 'lucide-react'
import { useState } from 'react'
import type { ErrorOperation } from '../../../contract/errors.ts'
import { Button } from '../../components/ui/button.tsx'
import { formatCountOf } from '../../lib/relative-time.ts'
import { AssignMenu } from './assign-menu.tsx'
import { LinkIssueDialog } from './link-issue-dialog.tsx'

/** Actions for the errors selected in the list; each sends one bulk PATCH with their ids. */
export function BulkToolbar({
  projectId,
  count,
  pending,
  onRun,
  onSnooze,
  onMerge,
  assignOpen,
  onAssignOpenChange,
  onClear,
}: {
  projectId: string
  count: number
  pending: boolean
  onRun: (operation: ErrorOperation) => void
  onSnooze: () => void
  /** Opens the merge dialog (two errors or more). */
  onMerge: () => void
  assignOpen: boolean
  onAssignOpenChange: (open: boolean) => void
  onClear: () => void
}) {
  const [linkOpen, setLinkOpen] = useState(false)
  return (
    <div role="toolbar" aria-label="Bulk actions" aria-busy={pending || undefined} className="flex min-w-0 flex-1 flex-wrap items-center gap-1.5">
      <span className="mr-1 text-sm font-medium tabular-nums" aria-live="polite">
        {formatCountOf(count, 'error')} selected
      </span>
      <Button size="sm" onClick={() => onRun({ operation: 'fix' })}>
        <Check aria-hidden="true" />
        Fix
      </Button>
      <Button size="sm" onClick={onSnooze}>
        <BellOff aria-hidden="true" />
        Snooze…
      </Button>
      <Button size="sm" onClick={() => onRun({ operation: 'ignore' })}>
        <EyeOff aria-hidden="true" />
        Ignore
      </Button>
      <Button size="sm" onClick={() => onRun({ operation: 'open' })}>
        <RotateCcw aria-hidden="true" />
        Reopen
      </Button>
      <Button size="sm" onClick={() => onRun({ operation: 'discard' })} title="Count their new events without storing them">
        <Ban aria-hidden="true" />
        Discard
      </Button>
      <Button size="sm" onClick={() => onRun({ operation: 'undiscard' })} title="Store their new events again">
        <Undo2 aria-hidden="true" />
        Undiscard
      </Button>
      <AssignMenu
        projectId={projectId}
        open={assignOpen}
        onOpenChange={onAssignOpenChange}
        buttonProps={{ size: 'sm' }}
        onAssign={(id) => onRun({ operation: 'assign', assigned_collaborator_id: id })}
      />
      <Button size="sm" onClick={() => setLinkOpen(true)}>
        <Link2 aria-hidden="true" />
        Link issue…
      </Button>
      <Button
        size="sm"
        onClick={onMerge}
        disabled={count < 2}
        title={count < 2 ? 'Select two errors or more to merge them' : undefined}
      >
        <Merge aria-hidden="true" />
        Merge…
      </Button>
      <Button size="sm" variant="ghost" onClick={onClear}>
        <X aria-hidden="true" />
        Clear selection
      </Button>
      <LinkIssueDialog
        open={linkOpen}
        count={count}
        onClose={() => setLinkOpen(false)}
        onLink={(url) => {
          setLinkOpen(false)
          onRun({ operation: 'link_issue', issue_url: url })
        }}
      />
    </div>
  )
}
