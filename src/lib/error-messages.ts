/** The messages of a failure: an ApiError's server messages, else the error's own message. */
export function errorMessages(error: unknown): string[] {
  if (error && typeof error === 'object' && 'messages' in error && Array.isArray(error.messages)) {
    return error.messages.map(String)
  }
  if (error instanceof Error) return [error.message]
  return [String(error)]
}
