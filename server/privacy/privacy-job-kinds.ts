/** The kinds of job privacy requests queue (handlers in privacy.jobs.ts). */
export const PRIVACY_JOBS = {
  /** Export a retrieval's events to its file. */
  retrieve: 'privacy.retrieve',
  /** Remove a retrieval's file when it expires. */
  expireFile: 'privacy.expire-file',
  /** Count a deletion's events (PREPARING → AWAITING_CONFIRMATION, or ACCEPTED). */
  countDeletion: 'privacy.count-deletion',
  /** Delete a deletion's events (ACCEPTED → COMPLETED). */
  delete: 'privacy.delete',
} as const
