import { useMutation } from '@tanstack/react-query'
import { CheckCircle2, FileCode2, FileJson, FileX2, X } from 'lucide-react'
import { useId, useState } from 'react'
import { isApiError } from '../../api/http.ts'
import { uploadSourceMapMutation } from '../../api/source-maps.ts'
import { Button } from '../../components/ui/button.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { Input, Label } from '../../components/ui/input.tsx'
import { formatBytes } from '../../lib/format-bytes.ts'
import { cn } from '../../lib/cn.ts'
import { FileDropzone } from './file-dropzone.tsx'
import { UploadProgress } from './upload-progress.tsx'
import { checkSourceMap, sortDroppedFiles, sourcesWithoutCode, suggestMinifiedUrl, type DroppedFile, type SourceMapCheck } from './to-upload-files.ts'

/** The dropped map as the browser read it: the check belongs to that one file. */
interface ReadMap {
  file: File
  check: SourceMapCheck
}

const ROLE_TEXT: Record<DroppedFile<File>['role'], string> = {
  map: 'source map',
  minified: 'minified file',
  source: 'source',
  unused: 'not sent',
}

function DroppedFiles({ entries, onRemove }: { entries: DroppedFile<File>[]; onRemove: (file: File) => void }) {
  return (
    <ul aria-label="Files to upload" className="flex flex-col divide-y divide-border rounded-md border border-border text-sm">
      {entries.map((entry) => {
        const Icon = entry.role === 'map' ? FileJson : entry.role === 'unused' ? FileX2 : FileCode2
        return (
          <li key={`${entry.file.name}-${entry.file.size}-${entry.file.lastModified}`} className="flex items-start gap-2 px-3 py-2">
            <Icon aria-hidden="true" className={cn('mt-0.5 size-4 shrink-0', entry.role === 'unused' ? 'text-muted-foreground' : 'text-accent')} />
            <div className="min-w-0 flex-1">
              <p className="font-mono text-xs [overflow-wrap:anywhere]">
                {entry.file.name} <span className="font-sans text-muted-foreground">· {formatBytes(entry.file.size)}</span>
              </p>
              <p className={cn('text-xs', entry.role === 'unused' ? 'text-warning' : 'text-muted-foreground')}>
                {ROLE_TEXT[entry.role]}
                {entry.role === 'source' && entry.field ? <span className="[overflow-wrap:anywhere]">: {entry.field}</span> : null}
                {entry.note ? <span className="[overflow-wrap:anywhere]"> ({entry.note})</span> : null}
              </p>
            </div>
            <Button size="icon" variant="ghost" aria-label={`Remove ${entry.file.name}`} onClick={() => onRemove(entry.file)}>
              <X aria-hidden="true" />
            </Button>
          </li>
        )
      })}
    </ul>
  )
}

/**
 * Uploads a JavaScript source map as the signed-in user, with the upload tools' fields and
 * checks (docs/source-maps.md, "From the dashboard"): drop the .map with its minified file and any sources it does not embed;
 * the URL pattern comes from the map's `file` and the app version from the newest event, both
 * editable. The map is checked here first (JSON, version 3); the server's refusal is shown as it
 * says it.
 */
export function SourceMapUploadForm({
  projectId,
  defaultAppVersion,
  defaultMinifiedUrl,
}: {
  projectId: string
  /** The app version to suggest (the newest event's, or the one a "missing source map" link names). */
  defaultAppVersion: string
  /** A URL to suggest over the map's own `file` (from a "missing source map" link). */
  defaultMinifiedUrl?: string
}) {
  const id = useId()
  const [files, setFiles] = useState<File[]>([])
  const [readMap, setReadMap] = useState<ReadMap | null>(null)
  // null: not edited, so the suggestion shows (and follows a newly dropped map).
  const [minifiedUrlInput, setMinifiedUrl] = useState<string | null>(null)
  const [appVersionInput, setAppVersion] = useState<string | null>(null)
  const [overwrite, setOverwrite] = useState(false)
  const [progress, setProgress] = useState<{ sent: number; total: number } | null>(null)
  const [uploaded, setUploaded] = useState<string | null>(null)

  const mapFile = files.find((file) => /\.map$/i.test(file.name)) ?? null
  const check = readMap && readMap.file === mapFile ? readMap.check : null
  const facts = check?.ok ? check.facts : null
  const entries = sortDroppedFiles(files, facts)
  const minified = entries.find((entry) => entry.role === 'minified')?.file ?? null
  const minifiedUrl = minifiedUrlInput ?? (defaultMinifiedUrl || (facts && mapFile ? suggestMinifiedUrl(facts, mapFile.name) : ''))
  const appVersion = appVersionInput ?? defaultAppVersion
  const withoutCode = facts ? sourcesWithoutCode(facts, entries) : []

  const problems = [
    ...(files.length > 0 && !mapFile ? ['Drop the source map (a .map file) with the other files.'] : []),
    ...(check && !check.ok ? [check.problem] : []),
  ]
  const ready = mapFile !== null && check?.ok === true && minifiedUrl.trim() !== ''

  const upload = useMutation({
    ...uploadSourceMapMutation(projectId),
    onSettled: () => setProgress(null),
    onSuccess: () => {
      const what = `${mapFile?.name ?? 'The source map'} uploaded for ${minifiedUrl.trim()}${appVersion.trim() ? `, version ${appVersion.trim()}` : ', no app version'}`
      // Read out by the status line that shows it.
      setUploaded(what)
      setFiles([])
      setReadMap(null)
      setMinifiedUrl(null)
      setOverwrite(false)
    },
  })
  const startUpload = () => {
    if (!mapFile) return
    setProgress({ sent: 0, total: files.reduce((sum, file) => sum + file.size, 0) })
    upload.mutate({
      upload: {
        minifiedUrl: minifiedUrl.trim(),
        appVersion,
        overwrite,
        sourceMap: mapFile,
        minifiedFile: minified,
        sources: entries.flatMap((entry) => (entry.role === 'source' && entry.field ? [{ field: entry.field, file: entry.file }] : [])),
      },
      onProgress: (sent, total) => setProgress({ sent, total }),
    })
  }

  const addFiles = (dropped: File[]) => {
    upload.reset()
    setUploaded(null)
    // A newly dropped map replaces the earlier one; other files add to the list (same name: the new one).
    const droppedMap = dropped.find((file) => /\.map$/i.test(file.name))
    const names = new Set(dropped.map((file) => file.name))
    const kept = files.filter((file) => !names.has(file.name) && !(droppedMap && /\.map$/i.test(file.name)))
    setFiles([...kept, ...dropped])
    if (droppedMap) {
      setMinifiedUrl(null)
      void droppedMap.text().then(
        (text) => setReadMap({ file: droppedMap, check: checkSourceMap(text, droppedMap.name) }),
        (err: unknown) => setReadMap({ file: droppedMap, check: { ok: false, problem: `${droppedMap.name} could not be read (${String(err)})` } }),
      )
    }
  }

  return (
    <form
      aria-label="Upload a source map"
      className="flex flex-col gap-4"
      onSubmit={(event) => {
        event.preventDefault()
        if (ready && !upload.isPending) startUpload()
      }}
    >
      <FileDropzone
        onFiles={addFiles}
        disabled={upload.isPending}
        label="Drop a .map file with its minified file and sources here"
        hint="Sources are needed only when the map does not embed them (sourcesContent)."
      />
      {entries.length > 0 ? <DroppedFiles entries={entries} onRemove={(file) => setFiles(files.filter((other) => other !== file))} /> : null}
      {problems.length > 0 ? (
        <div role="alert" className="rounded-md bg-danger-soft px-3 py-2 text-sm text-danger">
          {problems.map((problem) => (
            <p key={problem} className="break-words">
              {problem}
            </p>
          ))}
        </div>
      ) : null}
      {facts ? (
        <p className="text-xs text-muted-foreground">
          The map names {facts.sources.length} {facts.sources.length === 1 ? 'source' : 'sources'}
          {withoutCode.length > 0
            ? `; ${withoutCode.length} without their text (frames in them show no code unless you add the files)`
            : ', all with their text'}
          .{minified ? '' : ' Without the minified file, functions are named from the map’s call sites only.'}
        </p>
      ) : null}
      <div className="grid grid-cols-1 gap-3 md:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
        <div className="flex flex-col gap-1.5">
          <Label htmlFor={`${id}-url`}>Minified file URL</Label>
          <Input
            id={`${id}-url`}
            value={minifiedUrl}
            onChange={(event) => setMinifiedUrl(event.target.value)}
            placeholder="https://shop.example.com/assets/app.*.js"
            spellCheck={false}
            autoComplete="off"
            aria-describedby={`${id}-url-hint`}
            className="font-mono"
          />
          <p id={`${id}-url-hint`} className="text-xs text-muted-foreground">
            The URL (browser) or path (Node) frames name; <code className="font-mono">*</code> matches any characters.
          </p>
        </div>
        <div className="flex flex-col gap-1.5">
          <Label htmlFor={`${id}-version`}>App version</Label>
          <Input
            id={`${id}-version`}
            value={appVersion}
            onChange={(event) => setAppVersion(event.target.value)}
            placeholder="none"
            spellCheck={false}
            autoComplete="off"
            aria-describedby={`${id}-version-hint`}
            className="font-mono"
          />
          <p id={`${id}-version-hint`} className="text-xs text-muted-foreground">
            As the notifier reports it; empty for apps that send none.
          </p>
        </div>
      </div>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={overwrite} onChange={(event) => setOverwrite(event.target.checked)} className="size-4 accent-[var(--color-accent)]" />
        Replace an earlier upload for this URL and version
      </label>
      {progress ? <UploadProgress sent={progress.sent} total={progress.total} /> : null}
      {isApiError(upload.error, 409) ? (
        // The server's words speak to the API and the CLI (overwrite=true, --overwrite): here it is the box above.
        <p role="alert" className="rounded-md bg-danger-soft px-3 py-2 text-sm break-words text-danger">
          A source map for {minifiedUrl.trim()}
          {appVersion.trim() ? `, version ${appVersion.trim()},` : ' with no app version'} was uploaded already. To replace it, tick
          “Replace an earlier upload for this URL and version” and upload again.
        </p>
      ) : (
        <FormErrors error={upload.error} />
      )}
      {uploaded && !upload.isPending ? (
        <p role="status" className="flex items-center gap-2 text-sm text-success">
          <CheckCircle2 aria-hidden="true" className="size-4 shrink-0" />
          <span className="[overflow-wrap:anywhere]">{uploaded}. It applies to events received from now on.</span>
        </p>
      ) : null}
      <div>
        <Button type="submit" variant="primary" disabled={!ready || upload.isPending}>
          {upload.isPending ? 'Uploading…' : 'Upload source map'}
        </Button>
      </div>
    </form>
  )
}
