// The early script's half of src/lib/early-keys.ts: the shortcut keys pressed on the painted rows, kept for the app.
import { EARLY_KEYS, EARLY_KEYS_ATTRIBUTE } from '../lib/early-keys.ts'
import { SHELL_ID } from './errors-shell.ts'

/**
 * The early script: keeps each shortcut key pressed while the shell shows the errors list's rows.
 * On the plain shell nothing is on screen to act on, and a triage key played on a page nobody
 * has seen yet would fix or ignore an error unseen: the key is dropped. The shell has no text
 * fields, and a key with a modifier is the browser's. Returns a function that stops it (the
 * first key after the shell has gone does too).
 */
export function keepEarlyKeys(): () => void {
  const onKeyDown = (event: KeyboardEvent) => {
    const shell = document.getElementById(SHELL_ID)
    if (!shell) {
      document.removeEventListener('keydown', onKeyDown)
      return
    }
    if (!shell.querySelector('[role="list"]')) return
    if (event.altKey || event.ctrlKey || event.metaKey || event.isComposing) return
    if (event.key.length !== 1 || !EARLY_KEYS.includes(event.key)) return
    event.preventDefault()
    const root = document.documentElement
    root.setAttribute(EARLY_KEYS_ATTRIBUTE, (root.getAttribute(EARLY_KEYS_ATTRIBUTE) ?? '') + event.key)
  }
  document.addEventListener('keydown', onKeyDown)
  return () => document.removeEventListener('keydown', onKeyDown)
}
