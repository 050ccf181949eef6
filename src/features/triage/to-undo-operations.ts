import { changesStatus, isStatusOperation } from '../../../contract/error-status.ts'
import type { ErrorGroup, ErrorOperation } from '../../../contract/errors.ts'

/** One request that takes back part of a triage change. */
export interface UndoStep {
  errorIds: string[]
  operation: ErrorOperation
}

/**
 * What takes a change back, given the errors as they were before it. A status change is reverted
 * by the server from its history (revert_status), only on the errors whose status it changed: a
 * fix of a fixed error recorded nothing, and reverting it would take back an older change. A
 * re-snooze is a change (the rule was replaced). An assignment is assigned back, one request per
 * previous assignee. A discard is undiscarded (and the other way round) where it changed the error;
 * a linked or unlinked issue is linked back as it was, or unlinked. Errors not known before (not in
 * any cache) are left alone.
 */
export function toUndoOperations(
  operation: ErrorOperation,
  before: ReadonlyMap<string, ErrorGroup>,
  changedIds: readonly string[],
): UndoStep[] {
  if (isStatusOperation(operation)) {
    // Only where the contract's status rule says the operation was a change (and so recorded).
    const ids = changedIds.filter((id) => {
      const previous = before.get(id)
      return previous !== undefined && changesStatus(previous.status, operation.operation)
    })
    return ids.length > 0 ? [{ errorIds: ids, operation: { operation: 'revert_status' } }] : []
  }
  if (operation.operation === 'assign') {
    const next = operation.assigned_collaborator_id || null
    const byAssignee = new Map<string | null, string[]>()
    for (const id of changedIds) {
      const previous = before.get(id)
      if (!previous || previous.assigned_collaborator_id === next) continue
      const ids = byAssignee.get(previous.assigned_collaborator_id) ?? []
      ids.push(id)
      byAssignee.set(previous.assigned_collaborator_id, ids)
    }
    return [...byAssignee].map(([assignee, errorIds]) => ({
      errorIds,
      operation: { operation: 'assign', assigned_collaborator_id: assignee },
    }))
  }
  if (operation.operation === 'discard' || operation.operation === 'undiscard') {
    const discarding = operation.operation === 'discard'
    const ids = changedIds.filter((id) => before.has(id) && before.get(id)!.discarded !== discarding)
    return ids.length > 0 ? [{ errorIds: ids, operation: { operation: discarding ? 'undiscard' : 'discard' } }] : []
  }
  if (operation.operation === 'link_issue' || operation.operation === 'unlink_issue') {
    const byIssue = new Map<string | null, string[]>()
    for (const id of changedIds) {
      const previous = before.get(id)
      if (!previous) continue
      const url = previous.linked_issues[0]?.url ?? null
      if (url === (operation.operation === 'link_issue' ? operation.issue_url : null)) continue
      byIssue.set(url, [...(byIssue.get(url) ?? []), id])
    }
    return [...byIssue].map(([url, errorIds]) => ({
      errorIds,
      operation: url === null ? { operation: 'unlink_issue' } : { operation: 'link_issue', issue_url: url },
    }))
  }
  return []
}
