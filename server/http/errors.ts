import type { Failure, FailureKind } from '../failures.ts'

export type FailureStatus = 400 | 401 | 403 | 404 | 408 | 409 | 410 | 413 | 415 | 422 | 429 | 503 | 507

/** The HTTP status each kind of failure (server/failures.ts) is answered with. */
const STATUS: Record<FailureKind, FailureStatus> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  'not found': 404,
  timeout: 408,
  conflict: 409,
  gone: 410,
  'too large': 413,
  unprocessable: 422,
  'unsupported media type': 415,
  'too many': 429,
  unavailable: 503,
  'insufficient storage': 507,
}

export const statusOf = (failure: Failure): FailureStatus => STATUS[failure.kind]
