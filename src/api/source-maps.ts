import { keepPreviousData, queryOptions } from '@tanstack/react-query'
import { sourceMapSchema } from '../../contract/source-maps.ts'
import { apiUrl, getPage, sendEmpty } from './http.ts'
import { postMultipart, type UploadOptions } from './multipart-upload.ts'
import { invalidate, mutationWithCacheRule } from './cache-rules.ts'

const sourceMapsPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}/source_maps`

/** The uploads shown on the page: the newest this many matching the search. */
export const SOURCE_MAPS_PAGE_SIZE = 100

export const sourceMapKeys = {
  all: ['source-maps'] as const,
  project: (projectId: string) => [...sourceMapKeys.all, projectId] as const,
  list: (projectId: string, search: string) => [...sourceMapKeys.project(projectId), 'list', search] as const,
}

/** A project's source map uploads, newest first; `search` matches the URL pattern or the app version. */
export const sourceMapsQuery = (projectId: string, search: string) =>
  queryOptions({
    queryKey: sourceMapKeys.list(projectId, search),
    queryFn: ({ signal }) =>
      getPage(apiUrl(sourceMapsPath(projectId), { per_page: SOURCE_MAPS_PAGE_SIZE, q: search.trim() || undefined }), sourceMapSchema, signal),
    // Uploads come from build pipelines at any time, and events_mapped grows with each event.
    staleTime: 0,
    // Typing in the search keeps the last list on screen.
    placeholderData: keepPreviousData,
  })

/** Deletes one upload (admins; 204). Events it mapped keep their mapped frames. */
export const deleteSourceMap = (projectId: string, sourceMapId: string) =>
  sendEmpty('DELETE', apiUrl(`${sourceMapsPath(projectId)}/${encodeURIComponent(sourceMapId)}`))

/** The fields a dashboard upload sends: those of POST /sourcemap without apiKey (docs/source-maps.md). */
export interface SourceMapUpload {
  minifiedUrl: string
  /** '' sends none: the map then applies to events without an app version. */
  appVersion: string
  overwrite: boolean
  sourceMap: File
  minifiedFile: File | null
  /** Each source file under the field name the map knows it by. */
  sources: readonly { field: string; file: File }[]
}

/** The body in the order the upload tools send it: the text fields first, so a bad one is refused before the files. */
export function toUploadForm(upload: SourceMapUpload): FormData {
  const form = new FormData()
  form.append('minifiedUrl', upload.minifiedUrl)
  if (upload.appVersion.trim() !== '') form.append('appVersion', upload.appVersion.trim())
  if (upload.overwrite) form.append('overwrite', 'true')
  form.append('sourceMap', upload.sourceMap, upload.sourceMap.name)
  if (upload.minifiedFile) form.append('minifiedFile', upload.minifiedFile, upload.minifiedFile.name)
  for (const source of upload.sources) form.append(source.field, source.file, source.file.name)
  return form
}

/**
 * Uploads as the signed-in user (POST /api/projects/{id}/source_maps, recorded as theirs), with
 * the same checks and answers as the upload tools' POST /sourcemap, reporting its progress.
 * Rejects with an ApiError carrying the server's messages.
 */
export async function uploadSourceMap(projectId: string, upload: SourceMapUpload, options: UploadOptions = {}): Promise<void> {
  await postMultipart(apiUrl(sourceMapsPath(projectId)), toUploadForm(upload), options)
}

// Mutations: each carries what it changes in the cache (cache-rules.ts).

export const sourceMapMutationKeys = {
  upload: (projectId: string) => ['source-maps', 'upload', projectId] as const,
  delete: (projectId: string) => ['source-maps', 'delete', projectId] as const,
}

export const uploadSourceMapMutation = (projectId: string) =>
  mutationWithCacheRule({
    mutationKey: sourceMapMutationKeys.upload(projectId),
    mutationFn: ({ upload, onProgress }: { upload: SourceMapUpload; onProgress?: (sent: number, total: number) => void }) =>
      uploadSourceMap(projectId, upload, { onProgress }),
    meta: { inlineErrors: true },
    cache: { afterSuccess: () => invalidate(sourceMapKeys.project(projectId)) },
  })

export const deleteSourceMapMutation = (projectId: string) =>
  mutationWithCacheRule({
    mutationKey: sourceMapMutationKeys.delete(projectId),
    mutationFn: (sourceMapId: string) => deleteSourceMap(projectId, sourceMapId),
    meta: { inlineErrors: true },
    cache: { afterSuccess: () => invalidate(sourceMapKeys.project(projectId)) },
  })
