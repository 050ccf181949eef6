/**
 * An answer's JSON, read from a copy taken as the answer arrives (before the app, which takes the
 * answer itself, may read it); null for a failed or refused request or a body that is not JSON.
 */
export const readCopy = (answer: Promise<Response>): Promise<unknown> =>
  answer.then((response) => (response.ok ? response.clone().json() : null)).catch(() => null)
