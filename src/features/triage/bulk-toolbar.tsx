import { BellOff, Check, Ellipsis, EyeOff, Merge, RotateCcw, X } from 'lucide-react'
import { useState } from 'react'
import type { ErrorOperation } from '../../../contract/errors.ts'
import { Button } from '../../components/ui/button.tsx'
import { formatCountOf } from '../../lib/relative-time.ts'
import { AssignMenu } from './assign-menu.tsx'
import { LinkIssueDialog } from './link-issue-dialog.tsx'
import { MenuButton } from './menu.tsx'

/** A menu item's action and, under it, what it does. */
function Described({ what, how }: { what: string; how: string }) {
  return (
    <span className="flex flex-col">
      {what}
      <span className="text-xs text-muted-foreground">{how}</span>
    </span>
  )
}

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
      <AssignMenu
        projectId={projectId}
        open={assignOpen}
        onOpenChange={onAssignOpenChange}
        buttonProps={{ size: 'sm' }}
        onAssign={(id) => onRun({ operation: 'assign', assigned_collaborator_id: id })}
      />
      <Button size="sm" onClick={onMerge} disabled={count < 2} title={count < 2 ? 'Select two errors or more to merge them' : undefined}>
        <Merge aria-hidden="true" />
        Merge…
      </Button>
      {/* The less frequent actions, so the bar keeps to one line on a laptop. */}
      <MenuButton
        menuLabel="More actions"
        buttonProps={{ size: 'sm' }}
        items={[
          {
            id: 'discard',
            label: <Described what="Discard" how="Stop storing new events" />,
            onSelect: () => onRun({ operation: 'discard' }),
          },
          {
            id: 'undiscard',
            label: <Described what="Undiscard" how="Store new events again" />,
            onSelect: () => onRun({ operation: 'undiscard' }),
          },
          {
            id: 'link',
            label: 'Link issue…',
            onSelect: () => setLinkOpen(true),
          },
        ]}
      >
        <Ellipsis aria-hidden="true" />
        More
      </MenuButton>
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
