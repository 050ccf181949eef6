import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { nativeSymbolFileSchema, type NativeSymbolFile } from '../../contract/native.ts'
import { ApiError, apiUrl, getBlob, getJson, sendEmpty } from './http.ts'
import { invalidate, mutationWithCacheRule } from './cache-rules.ts'
import { postMultipart, type UploadOptions } from './multipart-upload.ts'

const nativeSymbolsPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}/native_symbols`

export const nativeSymbolKeys = {
  all: ['native-symbols'] as const,
  project: (projectId: string) => [...nativeSymbolKeys.all, projectId] as const,
  list: (projectId: string) => [...nativeSymbolKeys.project(projectId), 'list'] as const,
}

/** A project's native symbol files (Breakpad .sym and ELF), newest first. */
export const nativeSymbolsQuery = (projectId: string) =>
  queryOptions({
    queryKey: nativeSymbolKeys.list(projectId),
    queryFn: ({ signal }) => getJson(apiUrl(nativeSymbolsPath(projectId)), z.array(nativeSymbolFileSchema), signal),
    // Build pipelines upload symbols at any time (sym_upload, the Gradle plugin).
    staleTime: 0,
  })

/** Deletes one symbol file (admins; 204). Events it symbolicated keep their frames. */
export const deleteNativeSymbolFile = (projectId: string, fileId: string) =>
  sendEmpty('DELETE', apiUrl(`${nativeSymbolsPath(projectId)}/${encodeURIComponent(fileId)}`))

/** A Breakpad .sym upload: the fields of POST /breakpad-symbol without the key (docs/native.md). */
export interface BreakpadUpload {
  kind: 'breakpad'
  symbolFile: File
  overwrite: boolean
  /** '' sends none; else removed from the start of the file names frames show. */
  projectRoot: string
}

/** A shared object upload (.so, its debug extract, or .so.gz): the fields of POST /ndk-symbol without the key. */
export interface ElfUpload {
  kind: 'elf'
  soFile: File
  overwrite: boolean
  projectRoot: string
  /** '' sends none: the module's name then comes from the object itself. */
  sharedObjectName: string
}

export type NativeSymbolUpload = BreakpadUpload | ElfUpload

/** The body as the upload tools send it: the text fields first, the file last. */
export function toNativeUploadForm(upload: NativeSymbolUpload): FormData {
  const form = new FormData()
  if (upload.overwrite) form.append('overwrite', 'true')
  const root = upload.projectRoot.trim()
  if (upload.kind === 'breakpad') {
    if (root) form.append('project_root', root)
    form.append('symbol_file', upload.symbolFile, upload.symbolFile.name)
  } else {
    if (root) form.append('projectRoot', root)
    if (upload.sharedObjectName.trim()) form.append('sharedObjectName', upload.sharedObjectName.trim())
    form.append('soFile', upload.soFile, upload.soFile.name)
  }
  return form
}

/**
 * Uploads as the signed-in user (POST /api/projects/{id}/native_symbols?kind=…, recorded as
 * theirs), reporting progress; resolves with the indexed file as the list shows it. Rejects with
 * an ApiError carrying the server's messages.
 */
export async function uploadNativeSymbols(projectId: string, upload: NativeSymbolUpload, options: UploadOptions = {}): Promise<NativeSymbolFile> {
  const text = await postMultipart(apiUrl(nativeSymbolsPath(projectId), { kind: upload.kind }), toNativeUploadForm(upload), options)
  let parsed: ReturnType<typeof nativeSymbolFileSchema.safeParse>
  try {
    parsed = nativeSymbolFileSchema.safeParse(JSON.parse(text))
  } catch {
    throw new ApiError(502, ['Unexpected response to the upload: not JSON'])
  }
  if (!parsed.success) throw new ApiError(502, ['Unexpected response to the upload: not a symbol file'])
  return parsed.data
}

/** Saves a minidump event's dump (admins) through the browser's download; the API needs the session's token. */
export async function downloadMinidump(projectId: string, eventId: string): Promise<void> {
  const blob = await getBlob(apiUrl(`/projects/${encodeURIComponent(projectId)}/events/${encodeURIComponent(eventId)}/minidump`))
  const href = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = href
  link.download = `${eventId}.dmp`
  document.body.append(link)
  link.click()
  link.remove()
  // The download has its own copy once started.
  setTimeout(() => URL.revokeObjectURL(href), 10_000)
}

// Mutations: each carries what it changes in the cache (cache-rules.ts).

export const nativeSymbolMutationKeys = {
  upload: (projectId: string) => ['native-symbols', 'upload', projectId] as const,
  delete: (projectId: string) => ['native-symbols', 'delete', projectId] as const,
  downloadMinidump: (projectId: string) => ['native-symbols', 'download-minidump', projectId] as const,
}

export const uploadNativeSymbolsMutation = (projectId: string) =>
  mutationWithCacheRule({
    mutationKey: nativeSymbolMutationKeys.upload(projectId),
    mutationFn: ({ upload, onProgress }: { upload: NativeSymbolUpload; onProgress?: (sent: number, total: number) => void }) =>
      uploadNativeSymbols(projectId, upload, { onProgress }),
    meta: { inlineErrors: true },
    cache: { afterSuccess: () => invalidate(nativeSymbolKeys.project(projectId)) },
  })

export const deleteNativeSymbolFileMutation = (projectId: string) =>
  mutationWithCacheRule({
    mutationKey: nativeSymbolMutationKeys.delete(projectId),
    mutationFn: (fileId: string) => deleteNativeSymbolFile(projectId, fileId),
    meta: { inlineErrors: true },
    cache: { afterSuccess: () => invalidate(nativeSymbolKeys.project(projectId)) },
  })

/** Downloads an event's minidump (nothing cached changes). */
export const downloadMinidumpMutation = (projectId: string) =>
  mutationWithCacheRule({
    mutationKey: nativeSymbolMutationKeys.downloadMinidump(projectId),
    mutationFn: (eventId: string) => downloadMinidump(projectId, eventId),
    meta: { inlineErrors: true },
    cache: {},
  })
