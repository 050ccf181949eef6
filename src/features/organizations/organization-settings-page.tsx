import { useMutation, useSuspenseQuery } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import { KeyRound, Trash2 } from 'lucide-react'
import { useState } from 'react'
import type { Organization } from '../../../contract/organizations.ts'
import { deleteOrganizationMutation, organizationQuery, renameOrganizationMutation } from '../../api/organizations.ts'
import { Button } from '../../components/ui/button.tsx'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { PageHeader } from '../../components/ui/page-header.tsx'
import { useIsOrganizationAdmin } from '../collaborators/use-is-admin.ts'
import { DeleteByNameDialog } from '../settings/delete-by-name-dialog.tsx'
import { RenameForm } from '../settings/rename-form.tsx'
import { ServerStorageSection } from './server-storage-section.tsx'

/**
 * An organization's name, this server's storage (admins) and the organization's deletion. Admins change them; members read the name and are told
 * who can change it. Loaded by the route (organizations.$organizationId_.settings.tsx).
 */
export function OrganizationSettingsPage({ organizationId }: { organizationId: string }) {
  const { data: organization } = useSuspenseQuery(organizationQuery(organizationId))
  const isAdmin = useIsOrganizationAdmin(organizationId)
  const [deleting, setDeleting] = useState(false)

  return (
    <div className="mx-auto flex max-w-3xl flex-col gap-6">
      <PageHeader
        spacing="none"
        title={`${organization.name}: settings`}
        description={isAdmin ? undefined : 'Only organization admins can rename or delete this organization.'}
      />

      <Card aria-labelledby="organization-name-title">
        <CardHeader>
          <CardTitle id="organization-name-title">Name</CardTitle>
        </CardHeader>
        <CardContent>
          {isAdmin ? (
            <RenameForm
              label="Organization name"
              name={organization.name}
              rename={renameOrganizationMutation(organizationId)}
            />
          ) : (
            <p className="text-sm [overflow-wrap:anywhere]">{organization.name}</p>
          )}
        </CardContent>
      </Card>

      {isAdmin ? (
        <Card aria-labelledby="organization-tokens-title">
          <CardHeader>
            <CardTitle id="organization-tokens-title">API tokens</CardTitle>
          </CardHeader>
          <CardContent className="flex flex-col items-start gap-3 sm:flex-row sm:items-center sm:justify-between">
            <p className="text-sm text-muted-foreground">
              Tokens of the organization for scripts and integrations written for the legacy v1 API.
            </p>
            <Link
              to="/organizations/$organizationId/api-tokens"
              params={{ organizationId }}
              className="inline-flex shrink-0 items-center gap-1.5 text-sm font-medium text-accent underline-offset-2 hover:underline"
            >
              <KeyRound aria-hidden="true" className="size-4" />
              Manage API tokens
            </Link>
          </CardContent>
        </Card>
      ) : null}

      {isAdmin ? <ServerStorageSection organizationId={organizationId} /> : null}

      {isAdmin ? (
        <Card aria-labelledby="organization-delete-title" tone="danger">
          <CardHeader>
            <CardTitle id="organization-delete-title">Delete organization</CardTitle>
          </CardHeader>
          <CardContent className="flex flex-col items-start gap-3 sm:flex-row sm:items-center sm:justify-between">
            <p className="text-sm text-muted-foreground">
              Deletes the organization with all its projects, errors and events, and its collaborators lose access. This
              cannot be undone.
            </p>
            <Button tone="danger" onClick={() => setDeleting(true)}>
              <Trash2 aria-hidden="true" />
              Delete organization
            </Button>
          </CardContent>
        </Card>
      ) : null}

      {deleting ? <DeleteOrganizationDialog organization={organization} onClose={() => setDeleting(false)} /> : null}
    </div>
  )
}

function DeleteOrganizationDialog({ organization, onClose }: { organization: Organization; onClose: () => void }) {
  const navigate = useNavigate()
  const mutation = useMutation({ ...deleteOrganizationMutation(organization.id), onSuccess: () => navigate({ to: '/organizations' }) })
  return (
    <DeleteByNameDialog
      title={`Delete ${organization.name}?`}
      description="The organization, all its projects with their errors and events, and its invitations are deleted for good."
      name={organization.name}
      confirmLabel="Delete organization"
      pending={mutation.isPending}
      error={mutation.error}
      onConfirm={() => mutation.mutate()}
      onCancel={onClose}
    />
  )
}
