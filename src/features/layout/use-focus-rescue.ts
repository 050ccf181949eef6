import { useEffect } from 'react'

/**
 * When the focused control disappears (its row was deleted, the dialog that held it closed, a one-time
 * panel was dismissed), browsers drop focus to <body> and a keyboard user starts again from the top of the
 * page. This moves focus to the main landmark instead, so Tab continues within the page.
 */
export function useFocusRescue(fallbackId: string) {
  useEffect(() => {
    let lastFocused: Element | null = document.activeElement
    const onFocusIn = (event: FocusEvent) => {
      lastFocused = event.target instanceof Element ? event.target : null
    }
    // Focus left on purpose (a click on text, another window) while the control is still there:
    // its later removal must not pull focus back into the page. Chromium also fires focusout as it
    // removes the focused control, while it is still connected: so decide once the removal is done.
    const onFocusOut = (event: FocusEvent) => {
      const left = event.target
      if (left !== lastFocused || event.relatedTarget !== null) return
      queueMicrotask(() => {
        if (lastFocused === left && left instanceof Element && left.isConnected) lastFocused = null
      })
    }
    const observer = new MutationObserver(() => {
      const focusLost = document.activeElement === null || document.activeElement === document.body
      if (!focusLost || !lastFocused || lastFocused.isConnected) return
      lastFocused = null
      document.getElementById(fallbackId)?.focus({ preventScroll: true })
    })
    document.addEventListener('focusin', onFocusIn)
    document.addEventListener('focusout', onFocusOut)
    observer.observe(document.body, { childList: true, subtree: true })
    return () => {
      document.removeEventListener('focusin', onFocusIn)
      document.removeEventListener('focusout', onFocusOut)
      observer.disconnect()
    }
  }, [fallbackId])
}
