import { useMutation, useSuspenseQuery } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { KeyRound, Trash2 } from 'lucide-react'
import { useState } from 'react'
import type { Project } from '../../../contract/projects.ts'
import { deleteProjectMutation, projectQuery, regenerateApiKeyMutation, renameProjectMutation } from '../../api/projects.ts'
import { Button } from '../../components/ui/button.tsx'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { ConfirmDialog, Dialog } from '../../components/ui/dialog.tsx'
import { PageHeader } from '../../components/ui/page-header.tsx'
import { useIsOrganizationAdmin } from '../collaborators/use-is-admin.ts'
import { DeleteByNameDialog } from '../settings/delete-by-name-dialog.tsx'
import { RenameForm } from '../settings/rename-form.tsx'
import { ApiKeyField } from './api-key-field.tsx'
import { ProjectStorageSection } from './project-storage-section.tsx'
import { RateLimitSection } from './rate-limit-section.tsx'
import { RetentionSection } from './retention-section.tsx'

/**
 * A project's name, API key, rate limit, data retention, storage (admins) and deletion. Admins change them; members see the name and key and
 * are told who can change them (the server refuses them anyway). Loaded by the route
 * (projects.$projectId.settings.tsx), including what decides whether the user is an admin.
 */
export function ProjectSettingsPage({ projectId }: { projectId: string }) {
  const { data: project } = useSuspenseQuery(projectQuery(projectId))
  const isAdmin = useIsOrganizationAdmin(project.organization_id)
  const [dialog, setDialog] = useState<'regenerate' | 'delete' | null>(null)

  return (
    <div className="mx-auto flex max-w-3xl flex-col gap-6">
      <PageHeader
        spacing="none"
        title={`${project.name}: settings`}
        description={isAdmin ? `A ${project.type} project.` : 'Only organization admins can rename or delete this project, regenerate its API key or change its rate limit or data retention.'}
      />

      <Card aria-labelledby="project-name-title">
        <CardHeader>
          <CardTitle id="project-name-title">Name</CardTitle>
        </CardHeader>
        <CardContent>
          {isAdmin ? (
            <RenameForm
              label="Project name"
              name={project.name}
              rename={renameProjectMutation(projectId)}
            />
          ) : (
            <p className="text-sm [overflow-wrap:anywhere]">{project.name}</p>
          )}
        </CardContent>
      </Card>

      <Card aria-labelledby="project-key-title">
        <CardHeader>
          <CardTitle id="project-key-title">API key</CardTitle>
        </CardHeader>
        <CardContent className="flex flex-col gap-3">
          <p className="text-sm text-muted-foreground">
            Notifiers send this key with every error and session; it tells Errata which project they belong to.
          </p>
          <ApiKeyField apiKey={project.api_key} projectName={project.name} wrap />
          {isAdmin ? (
            <div className="flex flex-col items-start gap-2 border-t border-border pt-3 sm:flex-row sm:items-center sm:justify-between">
              <p className="text-sm text-muted-foreground">If the key has leaked, replace it with a new one.</p>
              <Button onClick={() => setDialog('regenerate')}>
                <KeyRound aria-hidden="true" />
                Regenerate API key
              </Button>
            </div>
          ) : null}
        </CardContent>
      </Card>

      <RateLimitSection projectId={projectId} isAdmin={isAdmin} />

      <RetentionSection project={project} isAdmin={isAdmin} />

      {isAdmin ? <ProjectStorageSection projectId={projectId} organizationId={project.organization_id} /> : null}

      {isAdmin ? (
        <Card aria-labelledby="project-delete-title" tone="danger">
          <CardHeader>
            <CardTitle id="project-delete-title">Delete project</CardTitle>
          </CardHeader>
          <CardContent className="flex flex-col items-start gap-3 sm:flex-row sm:items-center sm:justify-between">
            <p className="text-sm text-muted-foreground">
              Deletes the project with all its errors and events. This cannot be undone.
            </p>
            <Button tone="danger" onClick={() => setDialog('delete')}>
              <Trash2 aria-hidden="true" />
              Delete project
            </Button>
          </CardContent>
        </Card>
      ) : null}

      {dialog === 'regenerate' ? (
        <RegenerateKeyDialog project={project} onClose={() => setDialog(null)} />
      ) : null}
      {dialog === 'delete' ? <DeleteProjectDialog project={project} onClose={() => setDialog(null)} /> : null}
    </div>
  )
}

/** Asks first (old notifiers will be refused), then shows the new key to copy. */
function RegenerateKeyDialog({
  project,
  onClose,
}: {
  project: Project
  onClose: () => void
}) {
  const mutation = useMutation(regenerateApiKeyMutation(project.id))
  if (mutation.data) {
    return (
      <Dialog
        open
        onClose={onClose}
        title={`New API key for ${mutation.data.name}`}
        description="Give this key to your notifiers. The old key no longer works."
      >
        <div className="flex flex-col gap-3">
          <ApiKeyField apiKey={mutation.data.api_key} projectName={mutation.data.name} wrap />
          <div className="flex justify-end">
            <Button variant="primary" onClick={onClose}>
              Done
            </Button>
          </div>
        </div>
      </Dialog>
    )
  }
  return (
    <ConfirmDialog
      open
      title={`Regenerate the API key of ${project.name}?`}
      description="Notifiers still sending the current key will be refused from then on, and their errors lost, until they are given the new key."
      confirmLabel="Regenerate key"
      pending={mutation.isPending}
      error={mutation.error}
      onConfirm={() => mutation.mutate()}
      onCancel={onClose}
    />
  )
}

function DeleteProjectDialog({ project, onClose }: { project: Project; onClose: () => void }) {
  const navigate = useNavigate()
  const mutation = useMutation({
    ...deleteProjectMutation(project),
    onSuccess: () => navigate({ to: '/organizations/$organizationId', params: { organizationId: project.organization_id } }),
  })
  return (
    <DeleteByNameDialog
      title={`Delete ${project.name}?`}
      description="The project, its API key and all its errors and events are deleted for good."
      name={project.name}
      confirmLabel="Delete project"
      pending={mutation.isPending}
      error={mutation.error}
      onConfirm={() => mutation.mutate()}
      onCancel={onClose}
    />
  )
}
