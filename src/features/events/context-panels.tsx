import type * as React from 'react'
import type { ErrorEvent } from '../../../contract/events.ts'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { KeyValueTree } from './key-value-tree.tsx'

function Panel({ title, value, emptyText, aside }: { title: string; value: unknown; emptyText: string; aside?: React.ReactNode }) {
  const id = `panel-${title.toLowerCase()}`
  return (
    <Card aria-labelledby={id}>
      <CardHeader compact>
        <CardTitle id={id}>{title}</CardTitle>
        {aside}
      </CardHeader>
      <CardContent>
        <KeyValueTree value={value} label={title} emptyText={emptyText} />
      </CardContent>
    </Card>
  )
}

/** Who and where: the app, device, user and request the notifier described; `userAction` beside the user. */
export function ContextPanels({
  event,
  userAction,
}: {
  event: Pick<ErrorEvent, 'app' | 'device' | 'user' | 'request'>
  userAction?: React.ReactNode
}) {
  const user = Object.fromEntries(Object.entries(event.user).filter(([, value]) => value !== null))
  return (
    <div className="grid gap-4 md:grid-cols-2">
      <Panel title="User" value={user} emptyText="No user was attached to this event." aside={userAction} />
      <Panel title="Request" value={event.request} emptyText="No request data." />
      <Panel title="App" value={event.app} emptyText="No app data." />
      <Panel title="Device" value={event.device} emptyText="No device data." />
    </div>
  )
}
