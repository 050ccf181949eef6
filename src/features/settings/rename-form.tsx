import { useMutation, type UseMutationOptions } from '@tanstack/react-query'
import { Check } from 'lucide-react'
import { useId, useState } from 'react'
import { Button } from '../../components/ui/button.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { Input, Label } from '../../components/ui/input.tsx'
import { errorMessages } from '../../lib/error-messages.ts'

/** The server names the field first ("name: must not be empty"): those messages go beside the field. */
function splitNameErrors(error: Error | null): { field: string[]; other: string[] } {
  const messages = error ? errorMessages(error) : []
  return {
    field: messages.filter((message) => message.startsWith('name: ')).map((message) => message.slice('name: '.length)),
    other: messages.filter((message) => !message.startsWith('name: ')),
  }
}

/**
 * Renames an organization or a project: one field and Save. The server's validation messages for
 * the name show under the field, which is marked invalid; "Saved" stays until the name is edited.
 */
export function RenameForm<T extends { name: string }>({
  label,
  name,
  rename,
}: {
  /** The field's label, e.g. "Project name"; also starts its error messages. */
  label: string
  name: string
  /** The rename mutation (src/api), whose variables are the new name. */
  rename: UseMutationOptions<T, Error, string>
}) {
  const id = useId()
  const [value, setValue] = useState(name)
  const mutation = useMutation(rename)
  const errors = splitNameErrors(mutation.error)
  const fieldInvalid = errors.field.length > 0
  const saved = mutation.isSuccess && mutation.data.name === value.trim()

  return (
    <form
      className="flex flex-col gap-2"
      onSubmit={(event) => {
        event.preventDefault()
        mutation.mutate(value)
      }}
    >
      <Label htmlFor={`${id}-name`}>{label}</Label>
      <div className="flex flex-wrap items-start gap-2">
        <Input
          id={`${id}-name`}
          className="flex-1 basis-56"
          required
          maxLength={200}
          autoComplete="off"
          value={value}
          aria-invalid={fieldInvalid || undefined}
          aria-describedby={fieldInvalid ? `${id}-error` : undefined}
          onChange={(event) => {
            setValue(event.target.value)
            if (mutation.isError) mutation.reset()
          }}
        />
        <Button type="submit" variant="primary" disabled={mutation.isPending || value === name}>
          {mutation.isPending ? 'Saving…' : 'Save name'}
        </Button>
      </div>
      {fieldInvalid ? (
        <p id={`${id}-error`} role="alert" className="text-sm text-danger">
          {errors.field.map((message) => `${label} ${message}.`).join(' ')}
        </p>
      ) : null}
      {errors.other.length > 0 ? <FormErrors error={new Error(errors.other.join('\n'))} /> : null}
      <p role="status" className="flex items-center gap-1.5 text-sm text-success empty:hidden">
        {saved ? (
          <>
            <Check aria-hidden="true" className="size-4" />
            Saved.
          </>
        ) : null}
      </p>
    </form>
  )
}
