import { useSuspenseQuery } from '@tanstack/react-query'
import { createFileRoute, redirect } from '@tanstack/react-router'
import { z } from 'zod/mini'
import { eventQuery } from '../../api/events.ts'
import { EventDetail } from '../../features/events/event-detail.tsx'
import { EventNavigation } from '../../features/events/event-navigation.tsx'
import { EventTools } from '../../features/events/event-tools.tsx'
import { orNotFound, PageSkeleton, ResourceNotFound, RouteError } from '../../features/layout/route-states.tsx'
import { UserPrivacyLink } from '../../features/privacy/user-privacy-link.tsx'

export const Route = createFileRoute('/_authed/projects/$projectId/errors/$errorId/events/$eventId')({
  validateSearch: z.object({
    tab: z.catch(z.optional(z.string()), undefined),
    // The stack traces as the notifier sent them, before source maps (minified) or native symbols (raw).
    frames: z.catch(z.optional(z.enum(['minified', 'raw'])), undefined),
  }),
  loader: async ({ context: { queryClient }, params: { projectId, errorId, eventId } }) => {
    const event = await orNotFound(queryClient.ensureQueryData(eventQuery(projectId, eventId)))
    // A link with the wrong error id still shows the event, under its real address.
    if (event.error_id !== errorId) {
      throw redirect({
        to: '/projects/$projectId/errors/$errorId/events/$eventId',
        params: { projectId, errorId: event.error_id, eventId },
        replace: true,
      })
    }
  },
  pendingComponent: () => <PageSkeleton label="Loading the event" rows={5} />,
  errorComponent: (props) => <RouteError {...props} title="Could not load this event" />,
  notFoundComponent: EventNotFound,
  component: EventPage,
})

function EventPage() {
  const { projectId, errorId, eventId } = Route.useParams()
  const { tab, frames } = Route.useSearch()
  const navigate = Route.useNavigate()
  const { data: event } = useSuspenseQuery(eventQuery(projectId, eventId))
  return (
    <EventDetail
      event={event}
      metadataTab={tab}
      onMetadataTabChange={(next) => void navigate({ search: (prev) => ({ ...prev, tab: next }), replace: true })}
      showMinified={frames === 'minified'}
      onShowMinifiedChange={(minified) => void navigate({ search: (prev) => ({ ...prev, frames: minified ? 'minified' : undefined }), replace: true })}
      showRaw={frames === 'raw'}
      onShowRawChange={(raw) => void navigate({ search: (prev) => ({ ...prev, frames: raw ? 'raw' : undefined }), replace: true })}
      navigation={<EventNavigation projectId={projectId} errorId={errorId} event={event} />}
      tools={<EventTools projectId={projectId} errorId={errorId} event={event} />}
      userAction={<UserPrivacyLink projectId={projectId} user={event.user} />}
    />
  )
}

function EventNotFound() {
  const { projectId, eventId } = Route.useParams()
  return (
    <ResourceNotFound title="Event not found" projectId={projectId}>
      No event with id <code className="font-mono break-all">{eventId}</code> exists in this
      project, or it was deleted.
    </ResourceNotFound>
  )
}
