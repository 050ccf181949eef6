// Keyboard shortcuts pressed on the page's first paint (src/first-paint/), before the app's code
// runs: the early script keeps them (src/first-paint/keep-early-keys.ts), and the app plays them
// once its first page has taken the shell's place and listens for shortcuts
// (features/triage/keyboard-shortcuts.ts). Without this a `j` pressed on the painted rows was lost. Enter is not kept: the painted rows are real links,
// which the browser opens on Enter itself.

/** The shortcuts' single-character keys (a unit test holds them to SHORTCUTS). */
export const EARLY_KEYS = 'jkxfsian/?'

/** Where the early script keeps them: an attribute on <html>, which the app's page does not replace. */
export const EARLY_KEYS_ATTRIBUTE = 'data-early-keys'

/** Taken from the page when the shell goes, played once a page listens for shortcuts. */
let pending: string[] = []
let shellGone = false
let listeners = 0
let scheduled = false

/**
 * Plays the keys one task apart, as typed keys come: each sees the page the one before left. In
 * a task of its own, not in the render that removed the shell or attached the listener.
 */
function play(): void {
  if (scheduled || !shellGone || listeners === 0 || pending.length === 0) return
  scheduled = true
  setTimeout(() => {
    scheduled = false
    if (listeners === 0) return
    const key = pending.shift()
    if (key === undefined) return
    const target = document.activeElement ?? document.body
    target.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }))
    play()
  }, 0)
}

/** The app: the shell has gone (focus is where it will stay); the keys kept so far are to be played. */
export function takeEarlyKeys(): void {
  const root = document.documentElement
  pending = [...(root.getAttribute(EARLY_KEYS_ATTRIBUTE) ?? '')]
  root.removeAttribute(EARLY_KEYS_ATTRIBUTE)
  shellGone = true
  play()
}

/** The app moved to another page before any page listened: the keys were meant for the first one. */
export function forgetEarlyKeys(): void {
  pending = []
}

/** A page listens for shortcuts (until the returned function is called): the keys kept are its. */
export function listenForEarlyKeys(): () => void {
  listeners += 1
  play()
  return () => {
    listeners -= 1
  }
}
