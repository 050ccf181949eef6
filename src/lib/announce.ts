import { useSyncExternalStore } from 'react'

/**
 * Polite announcements for screen readers of what just happened (an error fixed, a severity
 * changed) when the change on screen is only a badge. The <Announcer> region reads them out.
 */
let message = ''
let sequence = 0
const listeners = new Set<() => void>()

export function announce(text: string): void {
  // A counter makes a repeated message a new one, so it is read out again.
  sequence += 1
  message = sequence % 2 === 0 ? `${text}\u200b` : text
  for (const listener of listeners) listener()
}

export function useAnnouncement(): string {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    () => message,
  )
}
