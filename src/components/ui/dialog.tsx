import { X } from 'lucide-react'
import { useEffect, useId, useRef, type ReactNode } from 'react'
import { cn } from '../../lib/cn.ts'
import { FormErrors } from './form-errors.tsx'
import { Button } from './button.tsx'

/** The app shell's <main id="main">, where focus goes when the control that opened a dialog is gone. */
const MAIN_LANDMARK_ID = 'main'

export type DialogProps = {
  open: boolean
  onClose: () => void
  title: ReactNode
  description?: ReactNode
  children?: ReactNode
  className?: string
  /** wide: for long lines (raw JSON), up to 64rem. */
  size?: 'default' | 'wide'
}

/**
 * A modal on the native <dialog> element: the browser gives focus trapping, inertness of the page and
 * the top layer. Closed dialogs are not rendered at all so their state resets on the next open.
 */
export function Dialog(props: DialogProps) {
  if (!props.open) return null
  return <OpenDialog {...props} />
}

function OpenDialog({ onClose, title, description, children, className, size = 'default' }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  const descriptionId = useId()
  const onCloseRef = useRef(onClose)
  useEffect(() => {
    onCloseRef.current = onClose
  })

  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    const previouslyFocused = document.activeElement instanceof HTMLElement ? document.activeElement : null
    // jsdom (tests) has no showModal; the open attribute gives the same accessibility tree there.
    if (typeof dialog.showModal === 'function') {
      if (!dialog.open) dialog.showModal()
    } else {
      dialog.setAttribute('open', '')
    }
    const autofocus = dialog.querySelector<HTMLElement>('[autofocus], [data-autofocus]')
    const firstFocusable = dialog.querySelector<HTMLElement>(
      'input:not([disabled]), select:not([disabled]), textarea:not([disabled]), button:not([disabled]):not([data-dialog-close]), [href], [tabindex]:not([tabindex="-1"])',
    )
    ;(autofocus ?? firstFocusable ?? dialog).focus()
    return () => {
      if (typeof dialog.close === 'function' && dialog.open) dialog.close()
      // Give focus back to whatever opened the dialog (keyboard users keep their place). When that
      // is gone too (the row the dialog removed), to the main landmark rather than <body>.
      if (previouslyFocused?.isConnected) previouslyFocused.focus()
      else document.getElementById(MAIN_LANDMARK_ID)?.focus({ preventScroll: true })
    }
  }, [])

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      aria-modal="true"
      // Focusable itself, for dialogs whose only control is Close (focus lands on the dialog).
      tabIndex={-1}
      className={cn(
        'fixed inset-0 m-auto rounded-lg border border-border bg-surface p-0 text-foreground shadow-lg backdrop:bg-black/40',
        size === 'wide' ? 'w-[min(64rem,calc(100vw-2rem))]' : 'w-[min(28rem,calc(100vw-2rem))]',
        className,
      )}
      onCancel={(event) => {
        // Escape: let React state drive closing rather than the browser.
        event.preventDefault()
        onCloseRef.current()
      }}
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.preventDefault()
          event.stopPropagation()
          onCloseRef.current()
        }
      }}
      onClick={(event) => {
        // A click on the backdrop targets the <dialog> itself.
        if (event.target === event.currentTarget) onCloseRef.current()
      }}
    >
      <div className="flex items-start justify-between gap-3 border-b border-border px-4 py-3">
        <div className="min-w-0">
          <h2 id={titleId} className="text-sm font-semibold [overflow-wrap:anywhere]">
            {title}
          </h2>
          {description ? (
            <p id={descriptionId} className="mt-1 text-sm text-muted-foreground [overflow-wrap:anywhere]">
              {description}
            </p>
          ) : null}
        </div>
        <Button
          variant="ghost"
          size="icon"
          aria-label="Close"
          data-dialog-close=""
          onClick={() => onCloseRef.current()}
        >
          <X aria-hidden />
        </Button>
      </div>
      <div className="px-4 py-3">{children}</div>
    </dialog>
  )
}

export type ConfirmDialogProps = {
  open: boolean
  title: ReactNode
  description: ReactNode
  confirmLabel: string
  destructive?: boolean
  pending?: boolean
  /** The confirm button is unavailable, e.g. while a choice in the dialog is incomplete. */
  confirmDisabled?: boolean
  onConfirm: () => void
  onCancel: () => void
  /** Shown above the buttons, e.g. what is about to change. */
  children?: ReactNode
  /** Why the last attempt failed (the server's message); the dialog stays open to retry or cancel. */
  error?: Error | null
}

export function ConfirmDialog({
  open,
  title,
  description,
  confirmLabel,
  destructive,
  pending,
  confirmDisabled,
  onConfirm,
  onCancel,
  children,
  error = null,
}: ConfirmDialogProps) {
  return (
    <Dialog open={open} onClose={onCancel} title={title} description={description}>
      {children ? <div className="mb-3">{children}</div> : null}
      {error ? (
        <div className="mb-3">
          <FormErrors error={error} />
        </div>
      ) : null}
      <div className="flex justify-end gap-2">
        <Button variant="secondary" onClick={onCancel} disabled={pending} data-autofocus="">
          Cancel
        </Button>
        <Button
          variant={destructive ? 'danger' : 'primary'}
          onClick={onConfirm}
          disabled={pending || confirmDisabled}
          aria-busy={pending || undefined}
        >
          {pending ? `${confirmLabel}…` : confirmLabel}
        </Button>
      </div>
    </Dialog>
  )
}
