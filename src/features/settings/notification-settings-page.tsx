import { useMutation, useQuery } from '@tanstack/react-query'
import { Check, Clock, Gauge, Mail, MailX } from 'lucide-react'
import { useId, useRef } from 'react'
import {
  DEFAULT_NOTIFICATION_KINDS,
  NOTIFICATION_KIND_LABELS,
  NOTIFICATION_KINDS,
  type NotificationKind,
  type NotificationSettings,
  type ProjectNotifications,
} from '../../../contract/notifications.ts'
import { notificationSettingsQuery, updateProjectNotificationsMutation } from '../../api/notifications.ts'
import { Button } from '../../components/ui/button.tsx'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { PageHeader } from '../../components/ui/page-header.tsx'
import { LoadingRegion, Skeleton } from '../../components/ui/skeleton.tsx'
import { EmptyState, ErrorState } from '../../components/ui/states.tsx'
import { errorMessages } from '../../lib/error-messages.ts'
import { formatCount } from '../../lib/relative-time.ts'
import { SettingsNav } from './settings-nav.tsx'

/** "09:00 UTC". */
export const formatDigestHour = (hour: number) => `${String(hour).padStart(2, '0')}:00 UTC`

/** "At most 10 alert emails an hour; more wait for the next digest." */
export const describeAlertLimit = (perHour: number) =>
  `At most ${formatCount(perHour)} alert ${perHour === 1 ? 'email' : 'emails'} an hour; more wait for the next digest.`

/** The projects under their organizations, in the order the server lists them. */
export function groupByOrganization(projects: readonly ProjectNotifications[]) {
  const groups = new Map<string, { id: string; name: string; projects: ProjectNotifications[] }>()
  for (const project of projects) {
    const group = groups.get(project.organization_id) ?? { id: project.organization_id, name: project.organization_name, projects: [] }
    group.projects.push(project)
    groups.set(project.organization_id, group)
  }
  return [...groups.values()]
}

/** The kinds with one turned on or off, in the contract's order (the list the server keeps). */
const withKind = (kinds: readonly NotificationKind[], kind: NotificationKind, on: boolean) =>
  NOTIFICATION_KINDS.filter((each) => (each === kind ? on : kinds.includes(each)))

const DEFAULTS_IN_ORDER = NOTIFICATION_KINDS.filter((kind) => DEFAULT_NOTIFICATION_KINDS.includes(kind))

// Wide screens: one row per project, a column per kind under one header row; narrow screens: each
// project's checkboxes as a labelled group of their own. The same elements either way.
const ROW_COLUMNS = 'lg:grid lg:grid-cols-[minmax(0,1fr)_33rem] lg:items-center lg:gap-4'
const KIND_COLUMNS = 'grid grid-cols-2 gap-x-4 gap-y-2 sm:grid-cols-3 lg:grid-cols-6 lg:gap-0'

/** /settings/notifications: what the signed-in user is emailed about, per project, saved as they click. */
export function NotificationSettingsPage() {
  const query = useQuery(notificationSettingsQuery())
  return (
    <div className="mx-auto flex w-full max-w-3xl min-w-0 flex-col gap-6">
      <SettingsNav current="/settings/notifications" />
      <PageHeader title="Notifications" description="Choose which emails you get about each project. Changes are saved as you make them." spacing="none" />
      {query.isPending ? (
        <LoadingRegion label="Loading your notification settings" className="flex flex-col gap-3">
          <Skeleton className="h-16" />
          <Skeleton className="h-40" rounded="lg" />
        </LoadingRegion>
      ) : query.isError ? (
        <ErrorState title="Could not load your notification settings" error={query.error} onRetry={() => void query.refetch()} />
      ) : (
        <NotificationSettingsForm settings={query.data} />
      )}
    </div>
  )
}

function NotificationSettingsForm({ settings }: { settings: NotificationSettings }) {
  const legendId = useId()
  const descriptionId = (kind: NotificationKind) => `${legendId}-${kind}`
  return (
    <>
      <Delivery settings={settings} />
      {settings.projects.length === 0 ? (
        <EmptyState title="You are not a member of any project yet">
          When an admin adds you to a project, choose here what you hear about it.
        </EmptyState>
      ) : (
        <>
          <KindLegend descriptionId={descriptionId} />
          {groupByOrganization(settings.projects).map((organization) => (
            <OrganizationProjects key={organization.id} name={organization.name} projects={organization.projects} descriptionId={descriptionId} />
          ))}
        </>
      )}
    </>
  )
}

/** Where the emails go and how often, and whether this server sends any. */
function Delivery({ settings }: { settings: NotificationSettings }) {
  return (
    <div className="flex flex-col gap-3">
      {settings.email_enabled ? null : (
        <p role="note" className="flex items-start gap-2 rounded-md border border-warning/40 bg-warning-soft/40 px-3 py-2 text-sm">
          <MailX aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-warning" />
          <span>
            <strong className="font-semibold">Email is off on this server:</strong> your choices are kept, but nothing is sent until an admin
            sets up SMTP (<code className="font-mono text-xs">ERRATA_SMTP_URL</code>).
          </span>
        </p>
      )}
      <ul className="flex flex-col gap-1.5 text-sm text-muted-foreground">
        <li className="flex items-start gap-2">
          <Mail aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
          <span className="min-w-0 [overflow-wrap:anywhere]">
            Emails go to <strong className="font-medium text-foreground">{settings.email}</strong>.
          </span>
        </li>
        <li className="flex items-start gap-2">
          <Clock aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
          <span>Daily digest at {formatDigestHour(settings.digest_hour_utc)}.</span>
        </li>
        <li className="flex items-start gap-2">
          <Gauge aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
          <span>{describeAlertLimit(settings.alerts_per_hour)}</span>
        </li>
      </ul>
    </div>
  )
}

/** What each kind means, once for the page; every checkbox of a kind is described by its entry. */
function KindLegend({ descriptionId }: { descriptionId: (kind: NotificationKind) => string }) {
  return (
    <Card aria-labelledby="notification-kinds-title">
      <CardHeader>
        <CardTitle id="notification-kinds-title">What each email is about</CardTitle>
      </CardHeader>
      <CardContent className="flex flex-col gap-3">
        <dl className="grid gap-x-6 gap-y-2 sm:grid-cols-2 lg:grid-cols-3">
          {NOTIFICATION_KINDS.map((kind) => (
            <div key={kind}>
              <dt className="text-sm font-medium">{NOTIFICATION_KIND_LABELS[kind].label}</dt>
              <dd id={descriptionId(kind)} className="text-xs text-muted-foreground">
                {NOTIFICATION_KIND_LABELS[kind].description}
              </dd>
            </div>
          ))}
        </dl>
        <p className="text-xs text-muted-foreground">
          Until you change a project’s choices, you get the defaults:{' '}
          {DEFAULTS_IN_ORDER.map((kind) => NOTIFICATION_KIND_LABELS[kind].label).join(', ').replace(/, ([^,]*)$/, ' and $1')}.
        </p>
      </CardContent>
    </Card>
  )
}

function OrganizationProjects({
  name,
  projects,
  descriptionId,
}: {
  name: string
  projects: readonly ProjectNotifications[]
  descriptionId: (kind: NotificationKind) => string
}) {
  const titleId = useId()
  return (
    <Card aria-labelledby={titleId}>
      <CardHeader>
        <CardTitle id={titleId} className="[overflow-wrap:anywhere]">
          {name}
        </CardTitle>
      </CardHeader>
      {/* The kinds' names above their columns; each checkbox carries its own name, so this row is for the eye only. */}
      <div aria-hidden="true" className={`hidden border-b border-border bg-surface-muted px-4 py-2 text-xs font-medium text-muted-foreground ${ROW_COLUMNS}`}>
        <span>Project</span>
        <span className="grid grid-cols-6">
          {NOTIFICATION_KINDS.map((kind) => (
            <span key={kind} className="px-1 text-center">
              {NOTIFICATION_KIND_LABELS[kind].label}
            </span>
          ))}
        </span>
      </div>
      <ul className="divide-y divide-border">
        {projects.map((project) => (
          <li key={project.project_id}>
            <ProjectRow project={project} descriptionId={descriptionId} />
          </li>
        ))}
      </ul>
    </Card>
  )
}

function ProjectRow({ project, descriptionId }: { project: ProjectNotifications; descriptionId: (kind: NotificationKind) => string }) {
  const nameId = useId()
  const groupRef = useRef<HTMLDivElement>(null)
  const mutation = useMutation(updateProjectNotificationsMutation(project.project_id))
  // While a change is on its way, the boxes show it; the server's answer then replaces the cached row.
  const kinds = mutation.isPending ? mutation.variables : project.kinds
  const resetToDefaults = () =>
    mutation.mutate(DEFAULTS_IN_ORDER, {
      // The button goes with the customization: the focus stays in the row.
      onSuccess: (saved) => {
        if (!saved.customized) groupRef.current?.querySelector('input')?.focus()
      },
    })
  return (
    <div className={`flex flex-col gap-3 px-4 py-3 ${ROW_COLUMNS}`}>
      <div className="flex min-w-0 flex-col gap-1">
        <h3 id={nameId} className="text-sm font-medium [overflow-wrap:anywhere]">
          {project.project_name}
        </h3>
        <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs">
          <SaveStatus pending={mutation.isPending} saved={mutation.isSuccess} />
          {project.customized ? (
            // Not `disabled` while saving: a disabled button would lose the focus.
            <Button variant="link" size="inline" aria-disabled={mutation.isPending} onClick={() => mutation.isPending || resetToDefaults()}>
              Reset to defaults <span className="sr-only">for {project.project_name}</span>
            </Button>
          ) : null}
        </div>
        {mutation.isError ? <SaveError error={mutation.error} /> : null}
      </div>
      <div ref={groupRef} role="group" aria-labelledby={nameId} className={KIND_COLUMNS}>
        {NOTIFICATION_KINDS.map((kind) => (
          <label key={kind} className="flex min-w-0 cursor-pointer items-center gap-2 text-sm lg:justify-center lg:py-1">
            <input
              type="checkbox"
              className="size-4 shrink-0 accent-accent"
              checked={kinds.includes(kind)}
              aria-describedby={descriptionId(kind)}
              onChange={(event) => mutation.mutate(withKind(kinds, kind, event.target.checked))}
            />
            <span className="lg:sr-only">{NOTIFICATION_KIND_LABELS[kind].label}</span>{' '}
            <span className="sr-only">for {project.project_name}</span>
          </label>
        ))}
      </div>
    </div>
  )
}

/** Saving… / Saved, announced as it changes (the region is there from the start). */
function SaveStatus({ pending, saved }: { pending: boolean; saved: boolean }) {
  return (
    <span role="status" className="flex items-center gap-1 text-muted-foreground empty:hidden">
      {pending ? (
        'Saving…'
      ) : saved ? (
        <>
          <Check aria-hidden="true" className="size-3.5 text-success" />
          <span className="text-success">Saved</span>
        </>
      ) : null}
    </span>
  )
}

/** The server's reason, in its words: the boxes are back to what is saved. */
function SaveError({ error }: { error: Error }) {
  return (
    <p role="alert" className="rounded-md bg-danger-soft px-2 py-1 text-xs break-words text-danger">
      Not saved: {errorMessages(error).join(' ')}
    </p>
  )
}
