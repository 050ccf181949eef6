import type { ErrorOperation, ErrorStatus } from './errors.ts'

/** The operations that set an error's status (the others leave it as it is). */
export type StatusOperation = Extract<ErrorOperation, { operation: 'fix' | 'open' | 'ignore' | 'snooze' }>
export type StatusOperationName = StatusOperation['operation']

/**
 * The status workflow, one rule for the server and the dashboard: the status each operation
 * sets, and the statuses it is a change from. From any other status the server accepts it as a
 * no-op (a bulk fix that includes fixed errors succeeds) and records nothing; a change is what the
 * history records, what Undo can take back, and what the dashboard offers. A snooze is a change
 * from every status, snoozed included: it replaces the rule and its bookkeeping.
 */
export const STATUS_OPERATIONS = {
  fix: { to: 'fixed', changesFrom: ['open', 'snoozed', 'ignored'] },
  open: { to: 'open', changesFrom: ['fixed', 'snoozed', 'ignored'] },
  ignore: { to: 'ignored', changesFrom: ['open', 'fixed', 'snoozed'] },
  snooze: { to: 'snoozed', changesFrom: ['open', 'fixed', 'snoozed', 'ignored'] },
} as const satisfies Record<StatusOperationName, { to: ErrorStatus; changesFrom: readonly ErrorStatus[] }>

export function isStatusOperation(operation: ErrorOperation): operation is StatusOperation {
  return Object.hasOwn(STATUS_OPERATIONS, operation.operation)
}

/** The status an error has after the operation. */
export const statusAfter = (operation: StatusOperationName): ErrorStatus => STATUS_OPERATIONS[operation].to

/** Whether the operation changes an error in this status (else it is a no-op the server accepts). */
export const changesStatus = (from: ErrorStatus, operation: StatusOperationName): boolean =>
  (STATUS_OPERATIONS[operation].changesFrom as readonly ErrorStatus[]).includes(from)
