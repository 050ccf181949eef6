import { useMutation } from '@tanstack/react-query'
import { UserPlus } from 'lucide-react'
import { useId, useState } from 'react'
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, PASSWORD_RULE } from '../../../contract/users.ts'
import type { InvitedCollaborator } from '../../../contract/collaborators.ts'
import type { Project } from '../../../contract/projects.ts'
import { inviteCollaboratorMutation } from '../../api/collaborators.ts'
import { Button } from '../../components/ui/button.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { Input, Label } from '../../components/ui/input.tsx'
import { ProjectPicker } from './project-picker.tsx'

/** Invite by email; on an install without mail, the admin may create the account directly instead. */
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
  const [createAccount, setCreateAccount] = useState(false)
  const [name, setName] = useState('')
  const [password, setPassword] = useState('')
  const [localError, setLocalError] = useState<Error | null>(null)

  const mutation = useMutation({
    ...inviteCollaboratorMutation(organizationId),
    onSuccess: (collaborator) => {
      setEmail('')
      setIsAdmin(false)
      setProjectIds(null)
      setCreateAccount(false)
      setName('')
      setPassword('')
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
          ...(createAccount ? { name, password } : {}),
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
      <div className="flex flex-col gap-3 rounded-md border border-border p-3">
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            className="size-4 accent-accent"
            checked={createAccount}
            onChange={(event) => setCreateAccount(event.target.checked)}
          />
          Create the account directly
        </label>
        <p className="text-xs text-muted-foreground">
          For installs without email: set a name and password now and pass them on yourself. Without this, you
          get an invitation link to send.
        </p>
        {createAccount ? (
          <>
            <div className="flex flex-col gap-1.5">
              <Label htmlFor={`${id}-name`}>Name</Label>
              <Input id={`${id}-name`} required maxLength={200} value={name} onChange={(event) => setName(event.target.value)} />
            </div>
            <div className="flex flex-col gap-1.5">
              <Label htmlFor={`${id}-password`}>Password</Label>
              <Input
                id={`${id}-password`}
                type="password"
                required
                minLength={MIN_PASSWORD_LENGTH}
                maxLength={MAX_PASSWORD_LENGTH}
                autoComplete="new-password"
                aria-describedby={`${id}-password-rule`}
                value={password}
                onChange={(event) => setPassword(event.target.value)}
              />
              <p id={`${id}-password-rule`} className="text-xs text-muted-foreground">
                {PASSWORD_RULE}
              </p>
            </div>
          </>
        ) : null}
      </div>
      <FormErrors error={localError ?? mutation.error} />
      <Button type="submit" variant="primary" disabled={mutation.isPending}>
        <UserPlus aria-hidden="true" />
        {mutation.isPending ? 'Inviting…' : createAccount ? 'Create account' : 'Invite'}
      </Button>
    </form>
  )
}
