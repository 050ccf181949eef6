import { useMutation, type UseMutationOptions } from '@tanstack/react-query'
import { AlertTriangle, Plus } from 'lucide-react'
import { useId, useState, type ReactNode } from 'react'
import { Button } from '../../components/ui/button.tsx'
import { CopyButton } from '../../components/ui/copy-button.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { Input, Label } from '../../components/ui/input.tsx'

/** A token as its creation answers it: the secret, shown this once, and what it is called. */
interface NewToken {
  token: string
}

/**
 * Creates a token named by one text field and shows its secret once: personal tokens
 * (personal-tokens-page.tsx) and organization API tokens (organization-tokens-page.tsx).
 */
export function CreateTokenForm<T extends NewToken>({
  create,
  nameOf,
  fieldLabel = 'Description',
  placeholder = 'CI release script',
  hint,
}: {
  create: UseMutationOptions<T, Error, string>
  nameOf: (token: T) => string
  fieldLabel?: string
  placeholder?: string
  hint: ReactNode
}) {
  const id = useId()
  const [description, setDescription] = useState('')
  // The secret lives only in this component's state: leaving the page forgets it for good.
  const [created, setCreated] = useState<T | null>(null)
  const mutation = useMutation({
    ...create,
    onSuccess: (token) => {
      setCreated(token)
      setDescription('')
    },
  })

  return (
    <div className="flex flex-col gap-4">
      <form
        aria-labelledby={`${id}-title`}
        className="flex flex-col gap-3"
        onSubmit={(event) => {
          event.preventDefault()
          setCreated(null)
          mutation.mutate(description)
        }}
      >
        <h2 id={`${id}-title`} className="text-sm font-semibold">
          Create a token
        </h2>
        <div className="flex flex-col gap-1.5">
          <Label htmlFor={`${id}-description`}>{fieldLabel}</Label>
          <div className="flex flex-wrap gap-2">
            <Input
              id={`${id}-description`}
              className="flex-1 basis-48"
              required
              maxLength={200}
              placeholder={placeholder}
              value={description}
              onChange={(event) => setDescription(event.target.value)}
            />
            <Button type="submit" variant="primary" disabled={mutation.isPending}>
              <Plus aria-hidden="true" />
              {mutation.isPending ? 'Creating…' : 'Create token'}
            </Button>
          </div>
          <p className="text-xs text-muted-foreground">{hint}</p>
        </div>
        <FormErrors error={mutation.error} />
      </form>
      {created ? <NewTokenSecret name={nameOf(created)} secret={created.token} onDone={() => setCreated(null)} /> : null}
    </div>
  )
}

function NewTokenSecret({ name, secret, onDone }: { name: string; secret: string; onDone: () => void }) {
  const id = useId()
  return (
    <div aria-label="New token" role="region" className="flex flex-col gap-2 rounded-md border border-warning/40 bg-warning-soft/40 p-3">
      <label htmlFor={id} className="text-sm font-medium [overflow-wrap:anywhere]">
        Token “{name}”
      </label>
      <div className="flex items-center gap-2">
        <Input id={id} readOnly value={secret} size="code" onFocus={(event) => event.currentTarget.select()} />
        <CopyButton value={secret} label="Copy the new token" />
      </div>
      <p role="status" className="flex items-start gap-1.5 text-xs text-foreground">
        <AlertTriangle aria-hidden="true" className="mt-px size-3.5 shrink-0 text-warning" />
        Copy it now: it will not be shown again. Errata keeps only a hash of it.
      </p>
      <div>
        <Button size="sm" onClick={onDone}>
          I have copied it
        </Button>
      </div>
    </div>
  )
}
