import { useEffect, useRef } from 'react'

export type ShortcutKey = 'j' | 'k' | 'Enter' | 'x' | 'f' | 's' | 'i' | 'a' | 'n' | '/' | '?'

export interface ShortcutDefinition {
  key: ShortcutKey
  description: string
  /** Where it works; the help panel groups by this. */
  where: 'Errors list' | 'Errors list and error page' | 'Error page'
}

/** Every shortcut, in the order the help panel lists them. */
export const SHORTCUTS: readonly ShortcutDefinition[] = [
  { key: 'j', description: 'Move to the next error', where: 'Errors list' },
  { key: 'k', description: 'Move to the previous error', where: 'Errors list' },
  { key: 'Enter', description: 'Open the focused error', where: 'Errors list' },
  { key: 'x', description: 'Select or deselect the focused error', where: 'Errors list' },
  { key: 'f', description: 'Fix (in the list: the selected errors, else the focused one)', where: 'Errors list and error page' },
  { key: 's', description: 'Snooze…', where: 'Errors list and error page' },
  { key: 'i', description: 'Ignore', where: 'Errors list and error page' },
  { key: 'a', description: 'Assign…', where: 'Errors list and error page' },
  { key: '/', description: 'Filter the errors list', where: 'Errors list' },
  { key: 'n', description: 'Open the next error of the list (after a fix, say)', where: 'Error page' },
  { key: '?', description: 'Show these keyboard shortcuts', where: 'Errors list and error page' },
]

const NON_TEXT_INPUTS = new Set(['checkbox', 'radio', 'button', 'submit', 'reset'])

/** Typing in a field, working in a menu or a dialog: letters are input there, not commands. */
export function shouldIgnoreShortcut(event: KeyboardEvent): boolean {
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.isComposing) return true
  const target = event.target
  if (target instanceof HTMLElement) {
    if (target.isContentEditable || ['TEXTAREA', 'SELECT'].includes(target.tagName)) return true
    // Checkboxes and radios take no letters: a row's checkbox keeps the list's shortcuts working.
    if (target instanceof HTMLInputElement && !NON_TEXT_INPUTS.has(target.type)) return true
    if (target.closest('[role="menu"], dialog')) return true
  }
  return document.querySelector('dialog[open]') !== null
}

/** Focuses the errors filter (rendered by the filter bar) when the page has one. */
export function focusFilterInput(): boolean {
  const input = document.getElementById('error-filter-input')
  if (!input) return false
  input.focus()
  return true
}

export type ShortcutHandlers = Partial<Record<ShortcutKey, (event: KeyboardEvent) => void>>

/**
 * The one keyboard-shortcut listener: pass the handlers this page supports. A handler that
 * returns is taken to have handled the key (the browser default is prevented), except Enter,
 * whose handler decides itself so links and buttons keep working.
 */
export function useShortcuts(handlers: ShortcutHandlers, enabled = true): void {
  const ref = useRef(handlers)
  useEffect(() => {
    ref.current = handlers
  })
  useEffect(() => {
    if (!enabled) return
    const onKeyDown = (event: KeyboardEvent) => {
      if (shouldIgnoreShortcut(event)) return
      const key = event.key as ShortcutKey
      const handler = Object.hasOwn(ref.current, key) ? ref.current[key] : undefined
      if (!handler) return
      if (key !== 'Enter') event.preventDefault()
      handler(event)
    }
    document.addEventListener('keydown', onKeyDown)
    return () => document.removeEventListener('keydown', onKeyDown)
  }, [enabled])
}
