import { useMutation, useQuery } from '@tanstack/react-query'
import { Trash2 } from 'lucide-react'
import { useState } from 'react'
import type { NativeSymbolFile } from '../../../contract/native.ts'
import { deleteNativeSymbolFileMutation, nativeSymbolsQuery } from '../../api/native-symbols.ts'
import { Badge } from '../../components/ui/badge.tsx'
import { Button } from '../../components/ui/button.tsx'
import { CopyButton } from '../../components/ui/copy-button.tsx'
import { ConfirmDialog } from '../../components/ui/dialog.tsx'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { LoadingRegion, Skeleton } from '../../components/ui/skeleton.tsx'
import { EmptyState, ErrorState } from '../../components/ui/states.tsx'
import { announce } from '../../lib/announce.ts'
import { formatBytes } from '../../lib/format-bytes.ts'

export const KIND_TEXT: Record<NativeSymbolFile['kind'], string> = { breakpad: '.sym', elf: 'ELF' }

/** Who uploaded it: a member by name, or the upload tools with the project's API key. */
export const uploaderText = (file: NativeSymbolFile) => file.uploaded_by?.name ?? 'upload tool'

/** An id in monospace, cut with an ellipsis where the column ends (whole in its tooltip), with a copy button. */
function Id({ label, value, module }: { label: string; value: string | null; module: string }) {
  if (value === null) return <span className="text-xs text-muted-foreground">no {label.toLowerCase()}</span>
  return (
    <span className="flex min-w-0 items-center gap-1">
      <span className="shrink-0 text-xs text-muted-foreground">{label}</span>
      <code title={value} className="min-w-0 truncate font-mono text-xs">
        {value}
      </code>
      <CopyButton iconOnly variant="ghost" value={value} label={`Copy the ${label.toLowerCase()} of ${module}`} className="shrink-0" />
    </span>
  )
}

/** What the file can and cannot do, in words: a stripped object gives names without file or line. */
function Flags({ file }: { file: NativeSymbolFile }) {
  return (
    <span className="flex flex-wrap gap-1">
      {!file.has_symbols ? (
        <Badge tone="warning" wrap>
          no symbols: frames stay as addresses
        </Badge>
      ) : !file.has_line_info ? (
        <Badge tone="warning" wrap>
          no line information: upload the unstripped library
        </Badge>
      ) : null}
      {file.has_inline_info ? <Badge wrap>inlined functions</Badge> : null}
      {file.has_cfi ? (
        <Badge tone="info" wrap>
          unwind info
        </Badge>
      ) : null}
    </span>
  )
}

// A table at md and up; below, each row is a card of stacked lines (the header row hidden, each
// cell led by what it is). One markup for both, so the table keeps its semantics.
const cell = 'max-md:block md:px-3 md:py-2.5 md:align-top'
const narrowLabel = 'mr-1 text-muted-foreground md:hidden'

function SymbolFileRow({ file, canDelete, onDelete }: { file: NativeSymbolFile; canDelete: boolean; onDelete: (file: NativeSymbolFile) => void }) {
  return (
    <tr className="max-md:flex max-md:flex-col max-md:gap-1.5 max-md:px-4 max-md:py-3">
      <th scope="row" className={`${cell} text-left font-normal`}>
        <span className="block font-mono text-sm font-semibold [overflow-wrap:anywhere]">{file.module_name}</span>
        <span className="mt-1 block">
          <Flags file={file} />
        </span>
      </th>
      <td className={`${cell} md:max-w-0`}>
        <span className="flex flex-col gap-0.5">
          <Id label="Debug id" value={file.debug_id} module={file.module_name} />
          <Id label="Build id" value={file.code_id} module={file.module_name} />
        </span>
      </td>
      <td className={`${cell} text-xs`}>
        <span className={narrowLabel}>Architecture</span>
        <span className="font-mono">{file.arch}</span>
        <span className="md:hidden">
          {' · '}
          {KIND_TEXT[file.kind]} · {formatBytes(file.size)}
        </span>
      </td>
      <td className={`${cell} text-xs max-md:hidden`}>{KIND_TEXT[file.kind]}</td>
      <td className={`${cell} text-xs whitespace-nowrap tabular-nums max-md:hidden`}>{formatBytes(file.size)}</td>
      <td className={`${cell} text-xs`}>
        <span className={narrowLabel}>Uploaded</span>
        <span className="[overflow-wrap:anywhere]">{uploaderText(file)}</span>
        <span className="text-muted-foreground">
          {' · '}
          <RelativeTime value={file.uploaded_at} />
        </span>
      </td>
      {canDelete ? (
        <td className={`${cell} md:text-right`}>
          <Button size="sm" variant="ghost" tone="danger" onClick={() => onDelete(file)}>
            <Trash2 aria-hidden="true" />
            Delete <span className="sr-only">the symbols for {file.module_name} ({file.arch}, {KIND_TEXT[file.kind]})</span>
          </Button>
        </td>
      ) : null}
    </tr>
  )
}

/** The project's native symbol files, newest first. Members see them; admins may delete one. */
export function NativeSymbolsList({ projectId, isAdmin }: { projectId: string; isAdmin: boolean }) {
  const query = useQuery(nativeSymbolsQuery(projectId))
  const [deleting, setDeleting] = useState<NativeSymbolFile | null>(null)
  const remove = useMutation(deleteNativeSymbolFileMutation(projectId))

  const body = query.isPending ? (
    <LoadingRegion label="Loading the symbol files" className="flex flex-col gap-2 p-4">
      <Skeleton className="h-10 w-full" />
      <Skeleton className="h-10 w-full" />
    </LoadingRegion>
  ) : query.isError ? (
    <ErrorState className="m-4" title="Could not load the symbol files" error={query.error} onRetry={() => void query.refetch()} />
  ) : query.data.length === 0 ? (
    <div className="p-4">
      <EmptyState title="No symbol files yet">
        Drop a .sym or .so file on a form above, or upload them from your build. Native frames show their library and address until then.
      </EmptyState>
    </div>
  ) : (
    <table className="w-full text-sm max-md:block">
      <caption className="sr-only">Uploaded symbol files, newest first</caption>
      <thead className="border-b border-border bg-surface-muted text-left text-xs text-muted-foreground max-md:sr-only">
        <tr>
          <th scope="col" className="px-3 py-2 font-medium">
            Module
          </th>
          <th scope="col" className="w-[34%] px-3 py-2 font-medium">
            Ids
          </th>
          <th scope="col" className="px-3 py-2 font-medium">
            Architecture
          </th>
          <th scope="col" className="px-3 py-2 font-medium">
            Kind
          </th>
          <th scope="col" className="px-3 py-2 font-medium">
            Size
          </th>
          <th scope="col" className="px-3 py-2 font-medium">
            Uploaded
          </th>
          {isAdmin ? (
            <th scope="col" className="px-3 py-2 font-medium">
              <span className="sr-only">Actions</span>
            </th>
          ) : null}
        </tr>
      </thead>
      <tbody className="divide-y divide-border max-md:block">
        {query.data.map((file) => (
          <SymbolFileRow key={file.id} file={file} canDelete={isAdmin} onDelete={setDeleting} />
        ))}
      </tbody>
    </table>
  )

  return (
    <>
      {!isAdmin ? <p className="border-b border-border px-4 py-2 text-xs text-muted-foreground">Only organization admins can delete symbol files.</p> : null}
      {body}
      <ConfirmDialog
        open={deleting !== null}
        title="Delete these symbols?"
        description={
          deleting
            ? `${deleting.module_name} (${deleting.arch}, ${KIND_TEXT[deleting.kind]}, debug id ${deleting.debug_id}): events received from now on no longer get function, file and line from it. Events it already symbolicated keep their frames.`
            : ''
        }
        confirmLabel="Delete symbols"
        destructive
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() =>
          deleting &&
          remove.mutate(deleting.id, {
            onSuccess: () => {
              setDeleting(null)
              announce(`Deleted the symbols for ${deleting.module_name}`)
            },
          })
        }
        onCancel={() => {
          setDeleting(null)
          remove.reset()
        }}
      />
    </>
  )
}
