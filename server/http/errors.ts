/** Typed failures thrown by services; app.onError turns each into one JSON envelope. */
export class HttpError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 408 | 409 | 410 | 413 | 415 | 422 | 429 | 503,
    readonly messages: string[],
  ) {
    super(messages.join('; '))
  }
}

export class ValidationError extends HttpError {
  constructor(messages: string[] | string) {
    super(400, Array.isArray(messages) ? messages : [messages])
  }
}

export class UnauthorizedError extends HttpError {
  constructor(message = 'Authorization header must be "token <YOUR_AUTH_TOKEN>" with a valid token') {
    super(401, [message])
  }
}

/** Also used for resources the caller may not see, so their existence is never revealed. */
export class NotFoundError extends HttpError {
  constructor(what: string) {
    super(404, [`${what} not found`])
  }
}

export class ForbiddenError extends HttpError {
  constructor(message: string) {
    super(403, [message])
  }
}

export class ConflictError extends HttpError {
  constructor(message: string) {
    super(409, [message])
  }
}

export class PayloadTooLargeError extends HttpError {
  constructor(limitBytes: number) {
    super(413, [`request body is larger than the limit of ${limitBytes} bytes`])
  }
}

/** 429 with Retry-After (whole seconds, set by app.onError); the message says when, for people. */
export class TooManyRequestsError extends HttpError {
  readonly retryAfterSeconds: number

  constructor(what: string, waitMs: number) {
    const seconds = Math.max(1, Math.ceil(waitMs / 1000))
    const minutes = Math.ceil(seconds / 60)
    const wait = seconds < 60 ? `${seconds} seconds` : minutes === 1 ? '1 minute' : `${minutes} minutes`
    super(429, [`${what}; try again in ${wait}`])
    this.retryAfterSeconds = seconds
  }
}

/** 503 with Retry-After: the server is too busy for this request now, and will not be shortly. */
export class ServiceBusyError extends HttpError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(503, [message])
  }
}
