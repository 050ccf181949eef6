/** A tiny toast store for background failures (the one place the query client reports them). */
export interface Toast {
  id: number
  title: string
  description?: string
  /** One button beside the text, such as Undo; the toast closes when it is pressed. */
  action?: { label: string; onClick: () => void }
}

type Listener = () => void

let toasts: readonly Toast[] = []
let nextId = 1
const listeners = new Set<Listener>()

function emit(): void {
  for (const listener of listeners) listener()
}

export function showToast(toast: Omit<Toast, 'id'>, timeoutMs = 6000): number {
  const id = nextId++
  // The same failure repeated (several queries, one outage) shows once; each action is its own.
  if (!toast.action && toasts.some((t) => t.title === toast.title && t.description === toast.description)) return id
  toasts = [...toasts, { ...toast, id }].slice(-3)
  emit()
  if (timeoutMs > 0) setTimeout(() => dismissToast(id), timeoutMs)
  return id
}

export function dismissToast(id: number): void {
  toasts = toasts.filter((t) => t.id !== id)
  emit()
}

export function subscribeToasts(listener: Listener): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

export const getToasts = (): readonly Toast[] => toasts

/** Closes every toast (tests start each case with none). */
export function dismissAllToasts(): void {
  toasts = []
  emit()
}
