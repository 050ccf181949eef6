import { useId, useState, type ReactNode } from 'react'
import { Button } from '../../components/ui/button.tsx'
import { Dialog } from '../../components/ui/dialog.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { Input, Label } from '../../components/ui/input.tsx'

/**
 * Confirms an irreversible deletion by having the name typed: the button stays unavailable until
 * it matches, so a stray Enter or click cannot delete anything.
 */
export function DeleteByNameDialog({
  title,
  description,
  name,
  confirmLabel,
  pending,
  error,
  onConfirm,
  onCancel,
}: {
  title: ReactNode
  description: ReactNode
  /** What must be typed. */
  name: string
  confirmLabel: string
  pending: boolean
  error: Error | null
  onConfirm: () => void
  onCancel: () => void
}) {
  const id = useId()
  const [typed, setTyped] = useState('')
  const matches = typed.trim() === name.trim()
  return (
    <Dialog open onClose={onCancel} title={title} description={description}>
      <form
        className="flex flex-col gap-3"
        onSubmit={(event) => {
          event.preventDefault()
          if (matches && !pending) onConfirm()
        }}
      >
        <div className="flex flex-col gap-1.5">
          <Label htmlFor={`${id}-confirm`} className="[overflow-wrap:anywhere]">
            Type <span className="font-mono font-semibold">{name}</span> to confirm
          </Label>
          <Input
            id={`${id}-confirm`}
            autoComplete="off"
            spellCheck={false}
            data-autofocus=""
            value={typed}
            onChange={(event) => setTyped(event.target.value)}
          />
        </div>
        <FormErrors error={error} />
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={onCancel} disabled={pending}>
            Cancel
          </Button>
          <Button
            type="submit"
            variant="danger"
            disabled={!matches || pending}
            aria-busy={pending || undefined}
          >
            {pending ? `${confirmLabel}…` : confirmLabel}
          </Button>
        </div>
      </form>
    </Dialog>
  )
}
