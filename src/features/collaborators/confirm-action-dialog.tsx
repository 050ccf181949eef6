import type { ReactNode } from 'react'
import { Button } from '../../components/ui/button.tsx'
import { Dialog } from '../../components/ui/dialog.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'

/**
 * A confirmation that stays open when the server refuses (last admin, 403) and shows its message
 * where the user just acted; ConfirmDialog has no place for that.
 */
export function ConfirmActionDialog({
  open,
  title,
  description,
  confirmLabel,
  destructive,
  pending,
  error,
  onConfirm,
  onCancel,
  children,
}: {
  open: boolean
  title: ReactNode
  description: ReactNode
  confirmLabel: string
  destructive?: boolean
  pending?: boolean
  error: Error | null
  onConfirm: () => void
  onCancel: () => void
  children?: ReactNode
}) {
  return (
    <Dialog open={open} onClose={onCancel} title={title} description={description}>
      <div className="flex flex-col gap-3">
        {children}
        <FormErrors error={error} />
        <div className="flex justify-end gap-2">
          <Button onClick={onCancel} disabled={pending} data-autofocus="">
            Cancel
          </Button>
          <Button
            variant="primary"
            className={destructive ? 'bg-danger text-white hover:bg-danger/90' : undefined}
            onClick={onConfirm}
            disabled={pending}
            aria-busy={pending || undefined}
          >
            {pending ? `${confirmLabel}…` : confirmLabel}
          </Button>
        </div>
      </div>
    </Dialog>
  )
}
