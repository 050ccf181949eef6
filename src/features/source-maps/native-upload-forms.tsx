import { useMutation } from '@tanstack/react-query'
import { CheckCircle2, FileCog, Info, X } from 'lucide-react'
import { useId, useState } from 'react'
import type * as React from 'react'
import type { NativeSymbolFile } from '../../../contract/native.ts'
import { isApiError } from '../../api/http.ts'
import { uploadNativeSymbolsMutation, type NativeSymbolUpload } from '../../api/native-symbols.ts'
import { Button } from '../../components/ui/button.tsx'
import { Input, Label } from '../../components/ui/input.tsx'
import { errorMessages } from '../../lib/error-messages.ts'
import { formatBytes } from '../../lib/format-bytes.ts'
import { FileDropzone } from './file-dropzone.tsx'
import { checkSharedObject, debugIdFromBuildId, libraryNameOf, readModuleLine, SYM_HEAD_BYTES, type ModuleLine, type SharedObjectCheck, type SymCheck } from './read-native-file.ts'
import { UploadProgress } from './upload-progress.tsx'

/** A dropped file with what the browser read of it (null while it reads). */
interface Read<Check> {
  file: File
  check: Check | null
}

/** Facts as a term list: the name in words, the value as it is (monospace when it is an id). */
function Facts({ label, items }: { label: string; items: [term: string, value: React.ReactNode, mono?: boolean][] }) {
  return (
    <dl aria-label={label} className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-1 text-xs">
      {items.map(([term, value, mono]) => (
        <div key={term} className="contents">
          <dt className="text-muted-foreground">{term}</dt>
          <dd className={mono ? 'font-mono [overflow-wrap:anywhere]' : '[overflow-wrap:anywhere]'}>{value}</dd>
        </div>
      ))}
    </dl>
  )
}

/** The dropped file, with its size and a button to take it off. */
function DroppedFile({ file, onRemove, children }: { file: File; onRemove: () => void; children?: React.ReactNode }) {
  return (
    <div className="flex items-start gap-2 rounded-md border border-border px-3 py-2 text-sm">
      <FileCog aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-accent" />
      <div className="flex min-w-0 flex-1 flex-col gap-2">
        <p className="font-mono text-xs [overflow-wrap:anywhere]">
          {file.name} <span className="font-sans text-muted-foreground">· {formatBytes(file.size)}</span>
        </p>
        {children}
      </div>
      <Button size="icon" variant="ghost" aria-label={`Remove ${file.name}`} onClick={onRemove}>
        <X aria-hidden="true" />
      </Button>
    </div>
  )
}

function Problem({ children }: { children: React.ReactNode }) {
  return (
    <p role="alert" className="rounded-md bg-danger-soft px-3 py-2 text-sm break-words text-danger">
      {children}
    </p>
  )
}

/** "symbol_file: line 12: …" → "line 12: …": the field is the file the form names itself. */
const withoutField = (message: string) => message.replace(/^(symbol_file|soFile): /, '')

/** The server's refusal, in its words, after the file's name; a duplicate says how to replace it. */
function Refusal({ error, fileName, duplicate }: { error: Error | null; fileName: string; duplicate: React.ReactNode }) {
  if (!error) return null
  if (isApiError(error, 409)) return <Problem>{duplicate}</Problem>
  const messages = errorMessages(error).map(withoutField)
  return (
    <div role="alert" className="rounded-md bg-danger-soft px-3 py-2 text-sm text-danger">
      <p className="font-medium [overflow-wrap:anywhere]">{isApiError(error, 0) ? 'The upload did not reach the server.' : `The server refused ${fileName}:`}</p>
      {messages.map((message, index) => (
        <p key={index} className="[overflow-wrap:anywhere]">
          {message}
        </p>
      ))}
    </div>
  )
}

/** After an upload: what the server made of the file, and what it will and will not do for frames. */
function Uploaded({ file, uploadedName }: { file: NativeSymbolFile; uploadedName: string }) {
  return (
    <div role="status" className="flex items-start gap-2 text-sm text-success">
      <CheckCircle2 aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
      <div className="min-w-0 [overflow-wrap:anywhere]">
        <p>
          {uploadedName} uploaded: symbols for {file.module_name} ({file.arch}). They apply to events received from now on.
        </p>
        {!file.has_line_info ? (
          <p className="text-warning">It has no line information, so frames will show function names without file and line: upload the unstripped library for those.</p>
        ) : null}
      </div>
    </div>
  )
}

function ProjectRootField({ id, value, onChange }: { id: string; value: string; onChange: (value: string) => void }) {
  return (
    <div className="flex flex-col gap-1.5">
      <Label htmlFor={`${id}-root`}>
        Project root <span className="font-normal text-muted-foreground">(optional)</span>
      </Label>
      <Input
        id={`${id}-root`}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        placeholder="/home/ci/app"
        spellCheck={false}
        autoComplete="off"
        aria-describedby={`${id}-root-hint`}
        className="font-mono"
      />
      <p id={`${id}-root-hint`} className="text-xs text-muted-foreground">
        Where the library was built: taken off the start of file names, and frames under it count as your own code.
      </p>
    </div>
  )
}

function useNativeUpload(projectId: string, onDone: () => void) {
  const [progress, setProgress] = useState<{ sent: number; total: number } | null>(null)
  const [uploaded, setUploaded] = useState<{ file: NativeSymbolFile; name: string } | null>(null)
  const upload = useMutation({
    ...uploadNativeSymbolsMutation(projectId),
    onSettled: () => setProgress(null),
    onSuccess: (file, { upload: sent }) => {
      setUploaded({ file, name: sent.kind === 'breakpad' ? sent.symbolFile.name : sent.soFile.name })
      onDone()
    },
  })
  const start = (sent: NativeSymbolUpload, size: number) => {
    setProgress({ sent: 0, total: size })
    upload.mutate({ upload: sent, onProgress: (done, total) => setProgress({ sent: done, total }) })
  }
  const reset = () => {
    upload.reset()
    setUploaded(null)
  }
  return { upload, progress, uploaded, start, reset }
}

const moduleFacts = (module: ModuleLine): [string, React.ReactNode, boolean?][] => [
  ['Module', module.name, true],
  ['System', module.os],
  ['CPU', module.cpu],
  ['Debug id', module.debugId, true],
  ...(module.codeId ? [['Build id', module.codeId, true] as [string, string, boolean]] : []),
]

/**
 * Uploads a Breakpad .sym file (dump_syms output) as the signed-in user. Its MODULE line is read
 * here first and shown (module, system, CPU, debug id); a file that does not start with one is
 * refused before anything is sent.
 */
export function BreakpadUploadForm({ projectId }: { projectId: string }) {
  const id = useId()
  const [dropped, setDropped] = useState<Read<SymCheck> | null>(null)
  const [overwrite, setOverwrite] = useState(false)
  const [projectRoot, setProjectRoot] = useState('')
  const { upload, progress, uploaded, start, reset } = useNativeUpload(projectId, () => {
    setDropped(null)
    setOverwrite(false)
  })
  const module = dropped?.check?.ok ? dropped.check.module : null
  const ready = dropped !== null && module !== null

  const addFiles = ([file]: File[]) => {
    if (!file) return
    reset()
    setDropped({ file, check: null })
    void file
      .slice(0, SYM_HEAD_BYTES)
      .text()
      .then(
        (text) => readModuleLine(text, file.name),
        (err: unknown): SymCheck => ({ ok: false, problem: `${file.name} could not be read (${String(err)})` }),
      )
      .then((check) => setDropped((current) => (current?.file === file ? { file, check } : current)))
  }

  return (
    <form
      aria-label="Upload a Breakpad symbol file"
      className="flex flex-col gap-4"
      onSubmit={(event) => {
        event.preventDefault()
        if (ready && !upload.isPending) start({ kind: 'breakpad', symbolFile: dropped.file, overwrite, projectRoot }, dropped.file.size)
      }}
    >
      <FileDropzone
        onFiles={addFiles}
        multiple={false}
        disabled={upload.isPending}
        label="Drop a Breakpad .sym file here"
        hint="Made by dump_syms from a library or executable with debug information."
      />
      {dropped ? (
        <DroppedFile file={dropped.file} onRemove={() => setDropped(null)}>
          {module ? <Facts label={`What ${dropped.file.name} says`} items={moduleFacts(module)} /> : null}
          {dropped.check === null ? <p className="text-xs text-muted-foreground">Reading…</p> : null}
        </DroppedFile>
      ) : null}
      {dropped?.check && !dropped.check.ok ? <Problem>{dropped.check.problem}</Problem> : null}
      <ProjectRootField id={id} value={projectRoot} onChange={setProjectRoot} />
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={overwrite} onChange={(event) => setOverwrite(event.target.checked)} className="size-4 accent-[var(--color-accent)]" />
        Replace symbols uploaded earlier for this module
      </label>
      {progress ? <UploadProgress sent={progress.sent} total={progress.total} checking="the symbols" /> : null}
      <Refusal
        error={upload.error}
        fileName={dropped?.file.name ?? 'the file'}
        duplicate={
          <>
            Symbols for {module?.name ?? 'this module'} (debug id {module?.debugId ?? 'the same'}) were uploaded already. To replace them, tick “Replace
            symbols uploaded earlier for this module” and upload again.
          </>
        }
      />
      {uploaded && !upload.isPending ? <Uploaded file={uploaded.file} uploadedName={uploaded.name} /> : null}
      <div>
        <Button type="submit" variant="primary" disabled={!ready || upload.isPending}>
          {upload.isPending ? 'Uploading…' : 'Upload symbol file'}
        </Button>
      </div>
    </form>
  )
}

function sharedObjectFacts(check: Extract<SharedObjectCheck, { ok: true }>): [string, React.ReactNode, boolean?][] {
  const kind = check.gzipped ? 'Shared library, gzipped' : 'Shared library (ELF)'
  if (!check.elf) return [['Kind', kind]]
  return [
    ['Kind', kind],
    ['CPU', `${check.elf.arch}, ${check.elf.bits}-bit`],
    ...(check.elf.buildId
      ? ([
          ['Build id', check.elf.buildId, true],
          ['Debug id', debugIdFromBuildId(check.elf.buildId), true],
        ] as [string, string, boolean][])
      : []),
  ]
}

/**
 * Uploads an ELF shared object (.so), its debug-only extract or either gzipped (.so.gz), as the
 * signed-in user. The first bytes are checked here (ELF or gzip; anything else is refused in
 * words) and the GNU build id shown when the browser finds it; when it cannot, the server reads it.
 */
export function SharedObjectUploadForm({ projectId }: { projectId: string }) {
  const id = useId()
  const [dropped, setDropped] = useState<Read<SharedObjectCheck> | null>(null)
  const [overwrite, setOverwrite] = useState(false)
  const [projectRoot, setProjectRoot] = useState('')
  const [sharedObjectName, setSharedObjectName] = useState('')
  const { upload, progress, uploaded, start, reset } = useNativeUpload(projectId, () => {
    setDropped(null)
    setOverwrite(false)
    setSharedObjectName('')
  })
  const check = dropped?.check ?? null
  const ready = dropped !== null && check?.ok === true
  const buildId = check?.ok ? (check.elf?.buildId ?? null) : null
  const suggestedName = dropped ? libraryNameOf(dropped.file.name) : null

  const addFiles = ([file]: File[]) => {
    if (!file) return
    reset()
    setDropped({ file, check: null })
    void checkSharedObject(file, file.name)
      .catch((err: unknown): SharedObjectCheck => ({ ok: false, problem: `${file.name} could not be read (${String(err)})` }))
      .then((result) => setDropped((current) => (current?.file === file ? { file, check: result } : current)))
  }

  return (
    <form
      aria-label="Upload a shared library"
      className="flex flex-col gap-4"
      onSubmit={(event) => {
        event.preventDefault()
        if (ready && !upload.isPending) {
          const name = sharedObjectName.trim() || suggestedName || ''
          start({ kind: 'elf', soFile: dropped.file, overwrite, projectRoot, sharedObjectName: name }, dropped.file.size)
        }
      }}
    >
      <FileDropzone
        onFiles={addFiles}
        multiple={false}
        disabled={upload.isPending}
        label="Drop a .so or .so.gz file here"
        hint={
          <>
            The library as built, before it is stripped, or its debug-only extract (<code className="font-mono whitespace-nowrap">objcopy --only-keep-debug</code>).
          </>
        }
      />
      {dropped ? (
        <DroppedFile file={dropped.file} onRemove={() => setDropped(null)}>
          {check?.ok ? <Facts label={`What ${dropped.file.name} says`} items={sharedObjectFacts(check)} /> : null}
          {check?.ok && !buildId ? (
            <p className="flex items-center gap-1.5 text-xs text-muted-foreground">
              <Info aria-hidden="true" className="size-3.5 shrink-0" />
              The build id will be read on upload.
            </p>
          ) : null}
          {check === null ? <p className="text-xs text-muted-foreground">Reading…</p> : null}
        </DroppedFile>
      ) : null}
      {check && !check.ok ? <Problem>{check.problem}</Problem> : null}
      <div className="grid grid-cols-1 gap-3 lg:grid-cols-2">
        <div className="flex flex-col gap-1.5">
          <Label htmlFor={`${id}-name`}>
            Library name <span className="font-normal text-muted-foreground">(optional)</span>
          </Label>
          <Input
            id={`${id}-name`}
            value={sharedObjectName}
            onChange={(event) => setSharedObjectName(event.target.value)}
            placeholder={suggestedName ?? 'libgame.so'}
            spellCheck={false}
            autoComplete="off"
            aria-describedby={`${id}-name-hint`}
            className="font-mono"
          />
          <p id={`${id}-name-hint`} className="text-xs text-muted-foreground">
            As the app loads it; by default the name the library gives itself, else the file’s.
          </p>
        </div>
        <ProjectRootField id={id} value={projectRoot} onChange={setProjectRoot} />
      </div>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={overwrite} onChange={(event) => setOverwrite(event.target.checked)} className="size-4 accent-[var(--color-accent)]" />
        Replace symbols uploaded earlier for this build
      </label>
      {progress ? <UploadProgress sent={progress.sent} total={progress.total} checking="the library" /> : null}
      <Refusal
        error={upload.error}
        fileName={dropped?.file.name ?? 'the file'}
        duplicate={
          <>
            Symbols for this build{buildId ? ` (build id ${buildId})` : ''} were uploaded already. To replace them, tick “Replace symbols uploaded
            earlier for this build” and upload again.
          </>
        }
      />
      {uploaded && !upload.isPending ? <Uploaded file={uploaded.file} uploadedName={uploaded.name} /> : null}
      <div>
        <Button type="submit" variant="primary" disabled={!ready || upload.isPending}>
          {upload.isPending ? 'Uploading…' : 'Upload library'}
        </Button>
      </div>
    </form>
  )
}
