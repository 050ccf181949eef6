// The early script's entry (vite.config.ts builds it into a classic script written into index.html).
import { startFirstRequests } from './first-requests.ts'
import { keepEarlyKeys } from './keep-early-keys.ts'
import { loadApp } from './load-app.ts'

/**
 * How long the app's files wait for the rows: past it (a slow or silent server) the app loads and
 * shows what it shows.
 */
const ROWS_WAIT_MS = 1500

// Read now: `currentScript` is the running classic script only while it runs.
const script = document.currentScript
keepEarlyKeys()
let painting: Promise<void> | undefined
try {
  painting = startFirstRequests()
} finally {
  // Where the page paints rows, the app's files come after them: compiled as they arrive, they
  // held the main thread when the answers came in, and the rows waited for it.
  if (painting) {
    let loaded = false
    const load = () => {
      if (loaded) return
      loaded = true
      loadApp(script)
    }
    void painting.catch(() => undefined).then(load)
    setTimeout(load, ROWS_WAIT_MS)
  } else loadApp(script)
}
