import { useMutation } from '@tanstack/react-query'
import { Plus } from 'lucide-react'
import { useState } from 'react'
import { PROJECT_TYPES, type Project, type ProjectType } from '../../../contract/projects.ts'
import { createProjectMutation } from '../../api/projects.ts'
import { Button } from '../../components/ui/button.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { Input, Label, Select } from '../../components/ui/input.tsx'

const isProjectType = (value: string): value is ProjectType => (PROJECT_TYPES as readonly string[]).includes(value)

export function CreateProjectForm({
  organizationId,
  onCreated,
}: {
  organizationId: string
  onCreated: (project: Project) => void
}) {
  const [name, setName] = useState('')
  const [type, setType] = useState<ProjectType>('node')
  const mutation = useMutation({
    ...createProjectMutation(organizationId),
    onSuccess: (project) => {
      setName('')
      onCreated(project)
    },
  })

  return (
    <form
      aria-labelledby="create-project-title"
      className="flex flex-col gap-3"
      onSubmit={(event) => {
        event.preventDefault()
        mutation.mutate({ name, type })
      }}
    >
      <h2 id="create-project-title" className="text-sm font-semibold">
        Create a project
      </h2>
      <div className="flex flex-wrap items-end gap-2">
        <div className="flex flex-1 basis-48 flex-col gap-1.5">
          <Label htmlFor="project-name">Name</Label>
          <Input
            id="project-name"
            required
            maxLength={200}
            placeholder="checkout-api"
            value={name}
            onChange={(event) => setName(event.target.value)}
          />
        </div>
        <div className="flex basis-40 flex-col gap-1.5">
          <Label htmlFor="project-type">Type</Label>
          <Select
            id="project-type"
            value={type}
            onChange={(event) => {
              if (isProjectType(event.target.value)) setType(event.target.value)
            }}
          >
            {PROJECT_TYPES.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </Select>
        </div>
        <Button type="submit" variant="primary" disabled={mutation.isPending}>
          <Plus aria-hidden="true" />
          {mutation.isPending ? 'Creating…' : 'Create project'}
        </Button>
      </div>
      <FormErrors error={mutation.error} />
    </form>
  )
}
