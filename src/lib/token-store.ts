/** The dashboard's auth token, kept in localStorage so a reload stays signed in. */
export const TOKEN_KEY = 'errata.token'

export function readToken(): string | null {
  try {
    return window.localStorage.getItem(TOKEN_KEY)
  } catch {
    return null
  }
}

export function writeToken(token: string): void {
  window.localStorage.setItem(TOKEN_KEY, token)
}

export function clearToken(): void {
  try {
    window.localStorage.removeItem(TOKEN_KEY)
  } catch {
    // Storage can be unavailable (privacy mode); there is nothing to clear then.
  }
}
