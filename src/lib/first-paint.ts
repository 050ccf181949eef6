// The page's shell (index.html's #first-paint, and the errors list's rows painted into it by
// src/first-paint/) stays on screen until the app's first page has rendered: until then the app
// renders unseen under it (index.css), so its loading states (an empty first commit, the route's
// pending view) never replace rows that are already shown.

import { takeEarlyKeys } from './early-keys.ts'

const SHELL_ID = 'first-paint'

/**
 * The app's element that stands where the shell's focused one stood: the link to the same place
 * (a row's error page, a project tab), the row's by preference. None for anything else.
 */
function appEquivalent(focused: Element): HTMLElement | null {
  const root = document.getElementById('root')
  const href = focused instanceof HTMLAnchorElement ? focused.getAttribute('href') : null
  if (!root || href === null) return null
  const links = [...root.querySelectorAll<HTMLElement>('a[href]')].filter((link) => link.getAttribute('href') === href)
  return links.find((link) => link.hasAttribute('data-row-index')) ?? links[0] ?? null
}

/**
 * The app's first page has rendered: it takes the shell's place. A user who had tabbed or clicked
 * into the shell (its rows are real links) keeps the focus on the same element of the app's page,
 * and the shortcuts pressed meanwhile are played there (early-keys.ts).
 */
export function removeFirstPaintShell(): void {
  const shell = document.getElementById(SHELL_ID)
  if (!shell) return
  const focused = document.activeElement
  const target = focused && focused !== shell && shell.contains(focused) ? appEquivalent(focused) : null
  shell.remove()
  // After the removal: the app's page is hidden while the shell is there (index.css), and a hidden element takes no focus.
  target?.focus({ preventScroll: true })
  // Shortcuts pressed on the shell act from there (j moves on from the row that kept the focus).
  takeEarlyKeys()
}
