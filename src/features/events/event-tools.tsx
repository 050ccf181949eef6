import { useMutation, useQuery } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { Braces, Download, FileDown, Trash2 } from 'lucide-react'
import { useState } from 'react'
import type { ErrorEvent } from '../../../contract/events.ts'
import { deleteEventMutation, eventNeighboursQuery } from '../../api/events.ts'
import { downloadMinidumpMutation } from '../../api/native-symbols.ts'
import { Button } from '../../components/ui/button.tsx'
import { CopyButton } from '../../components/ui/copy-button.tsx'
import { ConfirmDialog, Dialog } from '../../components/ui/dialog.tsx'
import { announce } from '../../lib/announce.ts'
import { errorMessages } from '../../lib/error-messages.ts'
import { formatBytes } from '../../lib/format-bytes.ts'
import { useIsProjectAdmin } from '../collaborators/use-is-admin.ts'

/** The event as JSON, as the Events API serves it (what the raw view shows and the download holds). */
const toJson = (event: ErrorEvent) => JSON.stringify(event, null, 2)

/** Saves the event's JSON as a file, from memory (the API needs the token, which a plain link cannot send). */
function downloadJson(event: ErrorEvent) {
  const url = URL.createObjectURL(new Blob([toJson(event)], { type: 'application/json' }))
  const link = document.createElement('a')
  link.href = url
  link.download = `event-${event.id}.json`
  document.body.append(link)
  link.click()
  link.remove()
  // After the click has handed the file to the browser.
  setTimeout(() => URL.revokeObjectURL(url), 0)
}

/**
 * A minidump event's dump, for admins: it holds the crashed process's memory. Fetched with the
 * session's token (a plain link cannot send it) and saved through the browser's download.
 */
function DownloadMinidump({ projectId, event, size }: { projectId: string; event: ErrorEvent; size: number }) {
  const download = useMutation(downloadMinidumpMutation(projectId))
  return (
    <>
      <Button size="toolbar" onClick={() => download.mutate(event.id)} disabled={download.isPending} aria-busy={download.isPending || undefined}>
        <FileDown aria-hidden="true" />
        {download.isPending ? 'Downloading…' : `Download minidump (${formatBytes(size)})`}
      </Button>
      {download.error ? (
        <p role="alert" className="basis-full text-right text-xs text-danger">
          Could not download the minidump: {errorMessages(download.error).join('; ')}
        </p>
      ) : null}
    </>
  )
}

/**
 * What can be done with one event: see it and download it as raw JSON, (admins) download its
 * minidump when it came from one, and (admins) delete it.
 * After a delete the page moves on to the next older event, else the newer one, else the error.
 */
export function EventTools({ projectId, errorId, event }: { projectId: string; errorId: string; event: ErrorEvent }) {
  const [rawOpen, setRawOpen] = useState(false)
  const [deleteOpen, setDeleteOpen] = useState(false)
  const isAdmin = useIsProjectAdmin(projectId)
  const neighbours = useQuery(eventNeighboursQuery(projectId, errorId, event))
  const deletion = useMutation(deleteEventMutation(projectId, errorId))
  const navigate = useNavigate()

  const afterDelete = () => {
    // The page stays mounted for the next event: the dialog must not stay open over it.
    setDeleteOpen(false)
    announce('Event deleted')
    const next = neighbours.data?.older ?? neighbours.data?.newer
    if (next) {
      void navigate({ to: '/projects/$projectId/errors/$errorId/events/$eventId', params: { projectId, errorId, eventId: next.id }, replace: true })
    } else {
      void navigate({ to: '/projects/$projectId/errors/$errorId', params: { projectId, errorId }, replace: true })
    }
  }

  return (
    <div className="flex flex-wrap items-center justify-end gap-2">
      <Button size="toolbar" onClick={() => setRawOpen(true)}>
        <Braces aria-hidden="true" />
        Raw JSON
      </Button>
      <Button size="toolbar" onClick={() => downloadJson(event)}>
        <Download aria-hidden="true" />
        Download JSON
      </Button>
      {isAdmin && event.minidump ? <DownloadMinidump projectId={projectId} event={event} size={event.minidump.size} /> : null}
      {isAdmin ? (
        <Button size="toolbar" variant="ghost" tone="danger" onClick={() => setDeleteOpen(true)}>
          <Trash2 aria-hidden="true" />
          Delete event
        </Button>
      ) : null}

      {/* Wide: JSON lines are long, and a narrow box wraps every one of them. */}
      <Dialog
        open={rawOpen}
        onClose={() => setRawOpen(false)}
        title="Raw event JSON"
        description="As the Events API serves it."
        size="wide"
      >
        {/* Untrusted text, shown as text. */}
        <pre role="region" tabIndex={0} aria-label="Event JSON" className="max-h-[60vh] overflow-auto rounded-md border border-border bg-surface-muted p-3 font-mono text-xs whitespace-pre-wrap break-all">
          {toJson(event)}
        </pre>
        <div className="mt-3 flex justify-end gap-2">
          <CopyButton value={toJson(event)} label="Copy JSON" />
          <Button size="sm" onClick={() => downloadJson(event)}>
            <Download aria-hidden="true" />
            Download JSON
          </Button>
        </div>
      </Dialog>
      <ConfirmDialog
        open={deleteOpen}
        title="Delete this event?"
        description="The event and its payload are deleted, and taken off the error's counts, trend and pivots. This cannot be undone."
        confirmLabel="Delete event"
        destructive
        pending={deletion.isPending}
        error={deletion.error}
        onCancel={() => {
          setDeleteOpen(false)
          deletion.reset()
        }}
        onConfirm={() => deletion.mutate({ eventId: event.id }, { onSuccess: afterDelete })}
      />
    </div>
  )
}
