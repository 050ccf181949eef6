import { createFileRoute } from '@tanstack/react-router'
import { AcceptInvitationPage } from '../features/invitations/accept-invitation-page.tsx'

/** Public: outside _authed, the invitee has no account yet. */
export const Route = createFileRoute('/invitations/$token')({
  component: InvitationRoute,
})

function InvitationRoute() {
  const { token } = Route.useParams()
  return <AcceptInvitationPage token={token} />
}
