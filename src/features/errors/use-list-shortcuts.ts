import { useState } from 'react'
import type { ErrorGroup, ErrorOperation } from '../../../contract/errors.ts'
import { focusFilterInput, useShortcuts } from '../triage/keyboard-shortcuts.ts'

const isInteractive = (element: Element | null) =>
  element instanceof HTMLElement && element.matches('a[href], button, input, select, textarea, summary')

/**
 * The errors list's keys: j / k move the focused row, Enter opens it, x selects it, and the
 * triage keys act on the selection, else the focused row. Returns the dialogs the keys open
 * (snooze, assign, the shortcuts help), which the list's buttons open too.
 */
export function useListShortcuts({
  focused,
  selectedIds,
  move,
  toggle,
  open,
  runOn,
}: {
  focused: ErrorGroup | undefined
  selectedIds: readonly string[]
  move: (step: 1 | -1) => void
  toggle: (errorId: string) => void
  open: (error: ErrorGroup) => void
  runOn: (ids: readonly string[], operation: ErrorOperation, fromSelection: boolean) => void
}) {
  const [snoozeTargets, setSnoozeTargets] = useState<readonly string[] | null>(null)
  const [assignTarget, setAssignTarget] = useState<ErrorGroup | null>(null)
  const [bulkAssignOpen, setBulkAssignOpen] = useState(false)
  const [helpOpen, setHelpOpen] = useState(false)

  /** What the triage keys act on: the selection, else the focused row. */
  const targets = (): { ids: readonly string[]; fromSelection: boolean } =>
    selectedIds.length > 0 ? { ids: selectedIds, fromSelection: true } : { ids: focused ? [focused.id] : [], fromSelection: false }

  useShortcuts({
    j: () => move(1),
    k: () => move(-1),
    Enter: (event) => {
      // Links, buttons and checkboxes handle Enter themselves.
      if (!focused || isInteractive(document.activeElement)) return
      event.preventDefault()
      open(focused)
    },
    x: () => {
      if (focused) toggle(focused.id)
    },
    f: () => {
      const { ids, fromSelection } = targets()
      runOn(ids, { operation: 'fix' }, fromSelection)
    },
    i: () => {
      const { ids, fromSelection } = targets()
      runOn(ids, { operation: 'ignore' }, fromSelection)
    },
    s: () => {
      const { ids } = targets()
      if (ids.length > 0) setSnoozeTargets(ids)
    },
    a: () => {
      if (selectedIds.length > 0) setBulkAssignOpen(true)
      else if (focused) setAssignTarget(focused)
    },
    '/': () => focusFilterInput(),
    '?': () => setHelpOpen(true),
  })

  return { snoozeTargets, setSnoozeTargets, assignTarget, setAssignTarget, bulkAssignOpen, setBulkAssignOpen, helpOpen, setHelpOpen }
}
