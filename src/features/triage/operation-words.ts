import type { ErrorOperation } from '../../../contract/errors.ts'
import { ApiError } from '../../api/http.ts'

/** What an operation does, for "Could not … the error". */
export const OPERATION_VERBS: Record<ErrorOperation['operation'], string> = {
  fix: 'fix',
  open: 'reopen',
  ignore: 'ignore',
  snooze: 'snooze',
  assign: 'assign',
  override_severity: 'change the severity of',
  discard: 'discard',
  undiscard: 'stop discarding',
  link_issue: 'link an issue to',
  unlink_issue: 'unlink the issue of',
  revert_status: 'undo the status change of',
  merge: 'merge',
  unmerge: 'unmerge',
  delete: 'delete',
}

/** An operation's past participle, for what it did ("3 errors fixed"). */
export const PAST: Record<ErrorOperation['operation'], string> = {
  fix: 'fixed',
  open: 'reopened',
  ignore: 'ignored',
  snooze: 'snoozed',
  assign: 'assigned',
  override_severity: 'changed in severity',
  discard: 'discarded',
  undiscard: 'no longer discarded',
  link_issue: 'linked to an issue',
  unlink_issue: 'unlinked from its issue',
  revert_status: 'restored',
  merge: 'merged',
  unmerge: 'unmerged',
  delete: 'deleted',
}

export const messageOf = (error: Error) => (error instanceof ApiError ? error.messages.join('\n') : error.message)
