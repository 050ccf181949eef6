// The project a user last opened, per user and per browser, so that signing in returns to it.
// localStorage can be unavailable (privacy modes) or full: then nothing is remembered and
// sign-in falls back to the organization picker.
const keyOf = (userId: string) => `errata.lastProject.${userId}`

export function readLastProject(userId: string): string | null {
  try {
    return window.localStorage.getItem(keyOf(userId))
  } catch {
    return null
  }
}

export function rememberLastProject(userId: string, projectId: string): void {
  try {
    window.localStorage.setItem(keyOf(userId), projectId)
  } catch {
    // Not remembered: sign-in shows the organization picker instead.
  }
}

export function forgetLastProject(userId: string): void {
  try {
    window.localStorage.removeItem(keyOf(userId))
  } catch {
    // Nothing was stored then either.
  }
}
