import { useMutation } from '@tanstack/react-query'
import { UserPlus } from 'lucide-react'
import { useId, useState } from 'react'
import type { InvitedCollaborator } from '../../../contract/collaborators.ts'
import type { Project } from '../../../contract/projects.ts'
import { inviteCollaboratorMutation } from '../../api/collaborators.ts'
import { Button } from '../../components/ui/button.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { Input, Label } from '../../components/ui/input.tsx'
import { ProjectPicker } from './project-picker.tsx'

/** Invite by email: the answer is an accept link to send; the invitee picks their own name and password. */
export function InviteCollaboratorForm({
  organizationId,
  projects,
  onInvited,
}: {
  organizationId: string
  projects: readonly Pick<Project, 'id' | 'name'>[]
  onInvited: (collaborator: InvitedCollaborator) => void
}) {
  const id = useId()
  const [email, setEmail] = useState('')
  const [isAdmin, setIsAdmin] = useState(false)
  const [projectIds, setProjectIds] = useState<string[] | null>(null)
  const [localError, setLocalError] = useState<Error | null>(null)

  const mutation = useMutation({
    ...inviteCollaboratorMutation(organizationId),
    onSuccess: (collaborator) => {
      setEmail('')
      setIsAdmin(false)
      setProjectIds(null)
      onInvited(collaborator)
    },
  })

  return (
    <form
      aria-labelledby={`${id}-title`}
      className="flex flex-col gap-4"
      onSubmit={(event) => {
        event.preventDefault()
        if (!isAdmin && projectIds !== null && projectIds.length === 0) {
          setLocalError(new Error('Choose at least one project, or All projects.'))
          return
        }
        setLocalError(null)
        mutation.mutate({
          email,
          is_admin: isAdmin,
          project_ids: isAdmin ? null : projectIds,
        })
      }}
    >
      <h2 id={`${id}-title`} className="text-sm font-semibold">
        Invite a collaborator
      </h2>
      <div className="flex flex-col gap-1.5">
        <Label htmlFor={`${id}-email`}>Email</Label>
        <Input
          id={`${id}-email`}
          type="email"
          required
          maxLength={320}
          autoComplete="off"
          placeholder="ada@example.com"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
        />
      </div>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" className="size-4 accent-accent" checked={isAdmin} onChange={(event) => setIsAdmin(event.target.checked)} />
        Admin (can invite, change and remove collaborators)
      </label>
      <ProjectPicker projects={projects} value={projectIds} onChange={setProjectIds} disabled={isAdmin} />
      <FormErrors error={localError ?? mutation.error} />
      <Button type="submit" variant="primary" disabled={mutation.isPending}>
        <UserPlus aria-hidden="true" />
        {mutation.isPending ? 'Inviting…' : 'Invite'}
      </Button>
    </form>
  )
}
