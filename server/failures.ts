// Why something asked of Errata could not be done: thrown by services, ingestion and
// middleware alike, and answered by the HTTP layer (http/errors.ts gives each kind its status,
// app.onError writes the one JSON envelope). Nothing here knows about HTTP.

export type FailureKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not found'
  | 'conflict'
  | 'gone'
  | 'timeout'
  | 'too large'
  | 'unprocessable'
  | 'unsupported media type'
  | 'too many'
  | 'unavailable'
  | 'insufficient storage'

/** A failure of one kind, with the messages the caller is shown (each naming what is wrong). */
export class Failure extends Error {
  constructor(
    readonly kind: FailureKind,
    readonly messages: string[],
  ) {
    super(messages.join('; '))
  }
}

export class ValidationError extends Failure {
  constructor(messages: string[] | string) {
    super('invalid', Array.isArray(messages) ? messages : [messages])
  }
}

export class UnauthorizedError extends Failure {
  constructor(message = 'Authorization header must be "token <YOUR_AUTH_TOKEN>" with a valid token') {
    super('unauthenticated', [message])
  }
}

/** Also used for resources the caller may not see, so their existence is never revealed. */
export class NotFoundError extends Failure {
  constructor(what: string) {
    super('not found', [`${what} not found`])
  }
}

export class ForbiddenError extends Failure {
  constructor(message: string) {
    super('forbidden', [message])
  }
}

export class ConflictError extends Failure {
  constructor(message: string) {
    super('conflict', [message])
  }
}

export class PayloadTooLargeError extends Failure {
  constructor(limitBytes: number) {
    super('too large', [`request body is larger than the limit of ${limitBytes} bytes`])
  }
}

/** The caller waits (Retry-After, whole seconds); the message says when, for people. */
export class TooManyRequestsError extends Failure {
  readonly retryAfterSeconds: number

  constructor(what: string, waitMs: number) {
    const seconds = Math.max(1, Math.ceil(waitMs / 1000))
    const minutes = Math.ceil(seconds / 60)
    const wait = seconds === 1 ? '1 second' : seconds < 60 ? `${seconds} seconds` : minutes === 1 ? '1 minute' : `${minutes} minutes`
    super('too many', [`${what}; try again in ${wait}`])
    this.retryAfterSeconds = seconds
  }
}

/** Errata cannot serve this now and will shortly (busy, shutting down, its storage away). */
export class ServiceBusyError extends Failure {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('unavailable', [message])
  }
}

/** Errata's disk is too full to store this (an upload while DATA_DIR is low on space). */
export class InsufficientStorageError extends Failure {
  constructor(message: string) {
    super('insufficient storage', [message])
  }
}
