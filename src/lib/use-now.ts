import { useSyncExternalStore } from 'react'

// One shared ticker so a thousand relative times re-render together, twice a minute.
const TICK_MS = 30_000
let now = Date.now()
const listeners = new Set<() => void>()
let timer: ReturnType<typeof setInterval> | undefined

// A time that mounts between ticks (a status change just made) would be compared with a clock
// up to TICK_MS old and read "in 26 seconds": a mount refreshes everyone's clock, at most once a second.
const REFRESH_ON_MOUNT_MS = 1_000

function tick() {
  now = Date.now()
  for (const l of listeners) l()
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  if (!timer) {
    // The clock may have been idle; React re-reads the snapshot after subscribing and re-renders.
    now = Date.now()
    timer = setInterval(tick, TICK_MS)
  } else if (Date.now() - now >= REFRESH_ON_MOUNT_MS) {
    queueMicrotask(tick)
  }
  return () => {
    listeners.delete(listener)
    if (listeners.size === 0 && timer) {
      clearInterval(timer)
      timer = undefined
    }
  }
}

export function useNow(): number {
  return useSyncExternalStore(subscribe, () => now)
}
