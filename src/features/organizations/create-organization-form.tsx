import { useMutation } from '@tanstack/react-query'
import { Plus } from 'lucide-react'
import { useState } from 'react'
import type { Organization } from '../../../contract/organizations.ts'
import { createOrganizationMutation } from '../../api/organizations.ts'
import { Button } from '../../components/ui/button.tsx'
import { Input, Label } from '../../components/ui/input.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'

export function CreateOrganizationForm({ onCreated }: { onCreated: (organization: Organization) => void }) {
  const [name, setName] = useState('')
  const mutation = useMutation({
    ...createOrganizationMutation(),
    onSuccess: (organization) => {
      setName('')
      onCreated(organization)
    },
  })

  return (
    <form
      aria-labelledby="create-organization-title"
      className="flex flex-col gap-3"
      onSubmit={(event) => {
        event.preventDefault()
        mutation.mutate({ name })
      }}
    >
      <h2 id="create-organization-title" className="text-sm font-semibold">
        Create an organization
      </h2>
      <div className="flex flex-col gap-1.5">
        <Label htmlFor="organization-name">Name</Label>
        <div className="flex flex-wrap gap-2">
          <Input
            id="organization-name"
            className="flex-1 basis-48"
            required
            maxLength={200}
            placeholder="Acme Inc."
            value={name}
            onChange={(event) => setName(event.target.value)}
          />
          <Button type="submit" variant="primary" disabled={mutation.isPending}>
            <Plus aria-hidden="true" />
            {mutation.isPending ? 'Creating…' : 'Create organization'}
          </Button>
        </div>
      </div>
      <FormErrors error={mutation.error} />
    </form>
  )
}
