import '@testing-library/jest-dom/vitest'
import { cleanup, configure } from '@testing-library/react'
import { afterEach, vi } from 'vitest'
import { dismissAllToasts } from '../lib/toast.ts'

// The first render of a page (router, query client, recharts) can take seconds on a busy
// 2-core CI machine; waits give the UI that long before failing.
configure({ asyncUtilTimeout: 5_000 })

// jsdom does not implement scrolling; the router's scroll restoration and the virtualizer call it.
window.scrollTo = () => {}
Element.prototype.scrollTo = () => {}
Element.prototype.scrollIntoView = () => {}

afterEach(() => {
  cleanup()
  // Toasts live outside React (src/lib/toast.ts): one left by a case must not show in the next.
  dismissAllToasts()
  window.localStorage.clear()
  window.sessionStorage.clear()
  vi.unstubAllGlobals()
})
