import { X } from 'lucide-react'
import { useSyncExternalStore } from 'react'
import { dismissToast, getToasts, subscribeToasts } from '../../lib/toast.ts'

export function Toaster() {
  const toasts = useSyncExternalStore(subscribeToasts, getToasts)
  return (
    <div aria-live="polite" className="pointer-events-none fixed right-4 bottom-4 z-50 flex w-80 max-w-[calc(100vw-2rem)] flex-col gap-2">
      {toasts.map((toast) => (
        <div
          key={toast.id}
          role="status"
          className="pointer-events-auto rounded-lg border border-border bg-surface p-3 text-sm shadow-lg"
        >
          <div className="flex items-start gap-2">
            <div className="min-w-0 flex-1">
              <p className="font-medium">{toast.title}</p>
              {toast.description ? (
                <p className="mt-0.5 break-words whitespace-pre-line text-muted-foreground">{toast.description}</p>
              ) : null}
            </div>
            {toast.action ? (
              <button
                type="button"
                className="shrink-0 rounded px-1.5 py-0.5 text-sm font-medium text-accent underline-offset-4 hover:underline"
                onClick={() => {
                  dismissToast(toast.id)
                  toast.action?.onClick()
                }}
              >
                {toast.action.label}
              </button>
            ) : null}
            <button
              type="button"
              aria-label="Dismiss notification"
              className="rounded p-0.5 text-muted-foreground hover:text-foreground"
              onClick={() => dismissToast(toast.id)}
            >
              <X aria-hidden="true" className="size-4" />
            </button>
          </div>
        </div>
      ))}
    </div>
  )
}
