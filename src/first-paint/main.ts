// The early script's entry (vite.config.ts builds it into a classic script written into index.html).
import { startFirstRequests } from './first-requests.ts'
import { loadApp } from './load-app.ts'

// Read now: `currentScript` is the running classic script only while it runs.
const script = document.currentScript
try {
  startFirstRequests()
} finally {
  loadApp(script)
}
