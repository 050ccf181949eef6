import type { Logger } from 'pino'
import { LRUCache } from 'lru-cache'
import type { EventException, MinifiedFrame, StackFrame, Symbolication } from '../../contract/events.ts'
import type { Config } from '../config.ts'
import type { Db } from '../db/client.ts'
import type { NormalizedEvent } from '../ingest/normalize.ts'
import { fetchSourceMapForUrl } from './fetch-source-map.ts'
import { createUrlFetcher, type FetchOptions, type UrlFetcher } from './fetch-url.ts'
import { isInProject, LoadedSourceMap, type OriginalPosition } from './loaded-source-map.ts'
import {
  chooseJsUpload,
  chooseReactNativeUpload,
  type EventVersions,
  type ReactNativeTarget,
  type UploadCandidate,
} from './match-uploads.ts'
import { parseSourceMap, SourceMapError } from './parse-source-map.ts'
import { addEventsMapped, findCandidates, loadUploadFiles } from './source-map-store.ts'
import { fileVariants, variantStrings, type FileVariants } from './url-pattern.ts'

/** One event of a batch, as the ingestion pipeline holds it before grouping. */
export interface SymbolicationEvent {
  id: string
  projectId: string
  receivedAt: Date
  event: NormalizedEvent
}

export interface JavaScriptSymbolicatorOptions {
  /** Where uploads are read (source_maps, source_map_files) and their counts written. */
  database: { db: Db }
  logger: Logger
  /** Parsed maps kept in this process's memory, in estimated bytes. Default 256 MiB. */
  cacheBytes?: number
  /**
   * Fetching by URL (spec rule 7): a browser frame whose file no upload matches is mapped from
   * the minified file's `sourceMappingURL`, and sources missing from a map are fetched for code
   * context. false (the default) fetches nothing; a UrlFetcher is used as it is.
   */
  fetch?: false | FetchOptions | UrlFetcher
}

export interface JavaScriptSymbolicator {
  /**
   * Maps the JavaScript frames of each event's `payload.exceptions[].stacktrace[]` in place
   * (see docs/source-maps.md) and sets `payload.symbolication`; events without JavaScript frames
   * to map are left untouched. Meant to run before grouping, off the HTTP thread. A missing,
   * unreadable or unfetchable map marks the event and never fails the batch; the promise rejects
   * only when the database does, with no event changed.
   */
  symbolicate(events: readonly SymbolicationEvent[]): Promise<void>
  /** What the in-memory cache holds (for tests and benchmarks). */
  cacheStats(): { maps: number; bytes: number }
}

/** The symbolicator's settings from the server configuration (ERRATA_SOURCE_MAP_CACHE_BYTES, ERRATA_FETCH_*). */
export function symbolicatorSettings(config: Config): Pick<JavaScriptSymbolicatorOptions, 'cacheBytes' | 'fetch'> {
  const { cacheBytes, fetch, fetchAllow, maxFileBytes } = config.sourceMaps
  return { cacheBytes, fetch: fetch ? { allow: fetchAllow, maxBytes: maxFileBytes } : false }
}

type FrameKind = 'url' | 'path' | 'react_native'

interface FrameTarget {
  exception: EventException
  index: number
  /** The frame as the notifier sent it (restored from `minified` when symbolicated before). */
  original: MinifiedFrame
  kind: FrameKind
  variants: FileVariants
  /**
   * Whether the frame should have a map, and so counts as missing one when none applies: browser
   * frames of script files (not a page's inline scripts), every React Native frame, and Node
   * frames the notifier marked in project (a Node stack also runs through unminified files, the
   * caller's script, that no one uploads maps for).
   */
  expected: boolean
}

interface EventWork {
  input: SymbolicationEvent
  versions: EventVersions
  reactNative: ReactNativeTarget | null
  targets: FrameTarget[]
}

interface Resolved {
  map: LoadedSourceMap
  /** The upload, or null for a map fetched by URL. */
  upload: UploadCandidate | null
}

type MapOutcome = LoadedSourceMap | { error: string }

const FAILED_MAP_TTL_MS = 60_000

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
const textOf = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' && Number.isFinite(value) ? String(value) : null

/** Where JavaScript frames come from, by the exception's type (bugsnag-js sets it) or the notifier's name. */
function exceptionKind(type: string | null, notifierName: string): FrameKind | 'per_frame' | null {
  if (type === 'browserjs') return 'url'
  if (type === 'nodejs') return 'path'
  if (type === 'reactnativejs') return 'react_native'
  if (type !== null && type !== '') return null
  if (/react native/i.test(notifierName)) return 'react_native'
  if (/node/i.test(notifierName)) return 'path'
  return 'per_frame'
}

const SCRIPT_FILE = /\.(?:m?js|cjs|jsx|bundle|jsbundle)$/i
const URL_WITH_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i
const NOT_A_SCRIPT = /^(?:native|\[native code\]|<anonymous>|unknown|eval|\(unknown\))$/i

/** Whether a frame of this kind could have a source map, and so counts as missing one when none matches. */
function frameKind(frame: MinifiedFrame, exceptionFrames: FrameKind | 'per_frame'): FrameKind | null {
  const file = frame.file
  if (!file || frame.line === null || NOT_A_SCRIPT.test(file)) return null
  const kind = exceptionFrames === 'per_frame' ? (/^https?:\/\//i.test(file) ? 'url' : null) : exceptionFrames
  if (kind === 'url') return URL_WITH_SCHEME.test(file) && !/^[a-z-]+-extension:/i.test(file) ? 'url' : null
  if (kind === 'path') return /^(node|internal)[:/]/.test(file) || /(^|\/)node_modules\//.test(file) ? null : 'path'
  return kind
}

function minifiedOf(frame: StackFrame): MinifiedFrame {
  if (frame.minified) return frame.minified
  return { file: frame.file, line: frame.line, column: frame.column, method: frame.method, in_project: frame.in_project, code: frame.code }
}

function readWork(input: SymbolicationEvent): EventWork {
  const payload = input.event.payload
  const app = isObject(payload.app) ? payload.app : {}
  const versions: EventVersions = { appVersion: payload.app_version ?? textOf(app.version), codeBundleId: textOf(app.codeBundleId) }
  const notifierName = typeof payload.notifier?.name === 'string' ? payload.notifier.name : ''
  const targets: FrameTarget[] = []
  let reactNative: ReactNativeTarget | null = null
  for (const exception of payload.exceptions) {
    const exceptionFrames = exceptionKind(exception.type, notifierName)
    if (exceptionFrames === null) continue
    exception.stacktrace.forEach((frame, index) => {
      if (frame.native) return
      const original = minifiedOf(frame)
      const kind = frameKind(original, exceptionFrames)
      if (kind === null) return
      const variants = fileVariants(original.file!, kind === 'path' ? 'path' : 'url')
      const expected = kind === 'react_native' || (kind === 'path' ? original.in_project : SCRIPT_FILE.test(variants.normalized ?? variants.exact))
      targets.push({ exception, index, original, kind, variants, expected })
      if (kind === 'react_native' && reactNative === null) {
        const device = isObject(payload.device) ? payload.device : {}
        reactNative = {
          ...versions,
          platform: textOf(device.osName)?.toLowerCase() ?? null,
          appVersionCode: textOf(app.versionCode) ?? textOf(app.bundleVersion),
          dev: /[?&]dev=true\b/.test(original.file!),
        }
      }
    })
  }
  return { input, versions, reactNative, targets }
}

/** `file` as shown in a missing-map entry: the URL without query or fragment. */
const missingUrl = (target: FrameTarget) => target.variants.normalized ?? target.variants.exact

export function createJavaScriptSymbolicator(options: JavaScriptSymbolicatorOptions): JavaScriptSymbolicator {
  const { logger } = options
  const db = options.database.db
  const fetcher: UrlFetcher | null = !options.fetch ? null : 'fetchText' in options.fetch ? options.fetch : createUrlFetcher(options.fetch)
  const maps = new LRUCache<string, LoadedSourceMap>({
    maxSize: options.cacheBytes ?? 256 * 1024 * 1024,
    sizeCalculation: (map) => Math.max(1, map.bytes),
  })
  // Maps that could not be read are not parsed again for every event for a while.
  const failedMaps = new LRUCache<string, { error: string }>({ max: 1000, ttl: FAILED_MAP_TTL_MS })
  const loading = new Map<string, Promise<MapOutcome>>()

  function cached(key: string, load: () => Promise<MapOutcome>): Promise<MapOutcome> {
    const hit = maps.get(key) ?? failedMaps.get(key)
    if (hit) return Promise.resolve(hit)
    const pending = loading.get(key)
    if (pending) return pending
    const started = load()
      .then((outcome) => {
        if (outcome instanceof LoadedSourceMap) maps.set(key, outcome)
        else failedMaps.set(key, outcome)
        return outcome
      })
      .finally(() => loading.delete(key))
    loading.set(key, started)
    return started
  }

  function loadUpload(upload: UploadCandidate): Promise<MapOutcome> {
    return cached(upload.id, async () => {
      const files = await loadUploadFiles(db, upload.id)
      if (!files?.map) return { error: 'the source map upload was deleted' }
      try {
        const trace = parseSourceMap(files.map)
        return new LoadedSourceMap({
          key: upload.id,
          trace,
          textBytes: files.mapBytes,
          projectRoot: upload.projectRoot,
          minified: files.minified,
          sourceFiles: files.sources,
        })
      } catch (err) {
        const message = err instanceof SourceMapError ? `the source map ${err.message}` : `the source map could not be read: ${(err as Error).message}`
        logger.warn({ sourceMapId: upload.id, err: message }, 'source map unusable')
        return { error: message }
      }
    })
  }

  function loadFetched(url: string): Promise<MapOutcome> {
    return cached(`url:${url}`, () => fetchSourceMapForUrl(fetcher!, url))
  }

  /** Fills in sources the map names but neither embeds nor had uploaded, fetched by URL for code context. */
  async function fetchMissingSources(wanted: Map<LoadedSourceMap, Map<number, string>>): Promise<void> {
    if (!fetcher) return
    const fetches: Promise<void>[] = []
    for (const [map, sources] of wanted) {
      for (const [index, frameUrl] of sources) {
        if (!map.needsSourceFetch(index)) continue
        let address: string | null = null
        try {
          address = new URL(map.sourcePath(index), frameUrl).href
        } catch {
          address = null
        }
        if (!address || !/^https?:/i.test(address)) {
          map.setFetchedSource(index, null)
          continue
        }
        fetches.push(fetcher.fetchText(address).then((result) => map.setFetchedSource(index, result.ok ? result.text : null)))
      }
    }
    await Promise.all(fetches)
  }

  /**
   * Reads what one project's events need (candidates, maps, fetched files) and returns the
   * changes to make, so that a database failure on any project changes no event.
   */
  async function prepareProject(projectId: string, works: EventWork[]): Promise<() => Map<string, number>> {
    const receivedUpTo = new Date(works.reduce((latest, work) => Math.max(latest, work.input.receivedAt.getTime()), 0))
    const candidates = await findCandidates(db, {
      projectId,
      receivedUpTo,
      appVersions: works.map((work) => work.versions.appVersion ?? ''),
      codeBundleIds: works.flatMap((work) => (work.versions.codeBundleId ? [work.versions.codeBundleId] : [])),
      files: works.flatMap((work) => work.targets.flatMap((target) => variantStrings(target.variants))),
      reactNative: works.some((work) => work.reactNative !== null),
    })

    // Which upload (or fetched map) each frame goes to.
    const chosen = new Map<FrameTarget, UploadCandidate | string>()
    const uploads = new Map<string, UploadCandidate>()
    const fetchUrls = new Set<string>()
    for (const work of works) {
      for (const target of work.targets) {
        const upload =
          target.kind === 'react_native'
            ? chooseReactNativeUpload(candidates, work.reactNative!, work.input.receivedAt)
            : chooseJsUpload(candidates, target.variants, work.versions, work.input.receivedAt)
        if (upload) {
          chosen.set(target, upload)
          uploads.set(upload.id, upload)
        } else if (fetcher && target.kind === 'url' && target.expected && /^https?:\/\//i.test(target.original.file!)) {
          // Script files only: a page's own URL (its inline scripts) has no sourceMappingURL to find.
          chosen.set(target, target.original.file!)
          fetchUrls.add(target.original.file!)
        }
      }
    }
    const outcomes = new Map<string, MapOutcome>()
    await Promise.all([
      ...[...uploads.values()].map(async (upload) => outcomes.set(upload.id, await loadUpload(upload))),
      ...[...fetchUrls].map(async (url) => outcomes.set(`url:${url}`, await loadFetched(url))),
    ])

    // Positions first: a frame's name can come from its caller's position.
    const positions = new Map<FrameTarget, { resolved: Resolved; position: OriginalPosition | null }>()
    const byException = new Map<EventException, Map<number, OriginalPosition | null>>()
    const errors = new Map<EventWork, Map<string, string>>()
    const wantedSources = new Map<LoadedSourceMap, Map<number, string>>()
    for (const work of works) {
      const problems = new Map<string, string>()
      errors.set(work, problems)
      for (const target of work.targets) {
        const choice = chosen.get(target)
        if (choice === undefined) continue
        const outcome = outcomes.get(typeof choice === 'string' ? `url:${choice}` : choice.id)!
        if (!(outcome instanceof LoadedSourceMap)) {
          problems.set(missingUrl(target), outcome.error)
          // A URL nothing was uploaded for and whose map could not be fetched is missing a map.
          if (typeof choice === 'string') chosen.delete(target)
          continue
        }
        const position = outcome.position(target.original.line!, target.original.column)
        positions.set(target, { resolved: { map: outcome, upload: typeof choice === 'string' ? null : choice }, position })
        const frames = byException.get(target.exception) ?? new Map<number, OriginalPosition | null>()
        byException.set(target.exception, frames.set(target.index, position))
        if (position === null) {
          const where = `line ${target.original.line}, column ${target.original.column ?? '?'}`
          if (target.expected || typeof choice !== 'string') problems.set(missingUrl(target), `${where} is not in the source map`)
          continue
        }
        const sources = wantedSources.get(outcome) ?? new Map<number, string>()
        if (!sources.has(position.sourceIndex)) sources.set(position.sourceIndex, target.original.file!)
        wantedSources.set(outcome, sources)
      }
    }
    await fetchMissingSources(wantedSources)
    return () => applyResults(works, { chosen, positions, byException, errors })
  }

  return {
    async symbolicate(events) {
      const byProject = new Map<string, EventWork[]>()
      for (const input of events) {
        const work = readWork(input)
        if (work.targets.length === 0) continue
        const list = byProject.get(input.projectId)
        if (list) list.push(work)
        else byProject.set(input.projectId, [work])
      }
      const changes: (() => Map<string, number>)[] = []
      for (const [projectId, works] of byProject) changes.push(await prepareProject(projectId, works))
      const counts = new Map<string, number>()
      for (const change of changes) for (const [id, n] of change()) counts.set(id, (counts.get(id) ?? 0) + n)
      // A statistic: failing to count must not fail the events.
      await addEventsMapped(db, counts).catch((err: unknown) => logger.warn({ err }, 'could not count the events source maps mapped'))
    },
    cacheStats: () => ({ maps: maps.size, bytes: maps.calculatedSize }),
  }
}

interface BatchResults {
  chosen: ReadonlyMap<FrameTarget, UploadCandidate | string>
  positions: ReadonlyMap<FrameTarget, { resolved: Resolved; position: OriginalPosition | null }>
  byException: ReadonlyMap<EventException, ReadonlyMap<number, OriginalPosition | null>>
  errors: ReadonlyMap<EventWork, ReadonlyMap<string, string>>
}

/** Writes the mapped frames and `symbolication` into each event; returns how many events each upload mapped. */
function applyResults(works: readonly EventWork[], { chosen, positions, byException, errors }: BatchResults): Map<string, number> {
  const counts = new Map<string, number>()
  for (const work of works) {
    const problems = errors.get(work)!
    const missing = new Map<string, Symbolication['missing'][number]>()
    const usedUploads = new Set<string>()
    let mapped = 0
    let unmapped = 0
    for (const target of work.targets) {
      const found = positions.get(target)
      if (found?.position) {
        target.exception.stacktrace[target.index] = mappedFrame(target, found.resolved, found.position, byException)
        mapped += 1
        if (found.resolved.upload) usedUploads.add(found.resolved.upload.id)
        continue
      }
      if (!target.expected) continue
      unmapped += 1
      const url = missingUrl(target)
      if (!chosen.has(target) && !missing.has(url)) missing.set(url, missingEntry(url, work))
    }
    for (const id of usedUploads) counts.set(id, (counts.get(id) ?? 0) + 1)
    // Nothing mapped and nothing that should have been: no JavaScript to speak of.
    if (mapped === 0 && unmapped === 0) continue
    const status: Symbolication['status'] = unmapped === 0 ? 'mapped' : mapped > 0 ? 'partial' : missing.size > 0 ? 'missing' : 'failed'
    work.input.event.payload.symbolication = {
      status,
      mapped_frames: mapped,
      missing: [...missing.values()],
      errors: [...problems].map(([url, message]) => ({ url, message })),
    }
  }
  return counts
}

function missingEntry(url: string, work: EventWork): Symbolication['missing'][number] {
  const entry: Symbolication['missing'][number] = { url, app_version: work.versions.appVersion }
  if (work.reactNative && work.targets.some((target) => target.kind === 'react_native' && missingUrl(target) === url)) {
    entry.platform = work.reactNative.platform
    entry.app_version_code = work.reactNative.appVersionCode
  }
  if (work.versions.codeBundleId) entry.code_bundle_id = work.versions.codeBundleId
  return entry
}

/**
 * The frame a map gives: original file (projectRoot stripped), line, 1-based column, the
 * function's original name (from its definition in the minified file, else from the call site
 * in the frame that called it, else the minified name), code context and in_project from the
 * original path; the frame as sent kept under `minified`.
 */
function mappedFrame(
  target: FrameTarget,
  resolved: Resolved,
  position: OriginalPosition,
  positions: ReadonlyMap<EventException, ReadonlyMap<number, OriginalPosition | null>>,
): StackFrame {
  const { original } = target
  const { map } = resolved
  const file = map.displayPath(position.sourceIndex)
  const method = map.definitionName(original.line!, original.column, original.method) ?? positions.get(target.exception)?.get(target.index + 1)?.name ?? original.method
  const frame: StackFrame = {
    file,
    line: position.line,
    column: position.column + 1,
    method,
    in_project: isInProject(file),
    code: map.codeContext(position.sourceIndex, position.line),
    minified: original,
  }
  if (resolved.upload) frame.source_map_id = resolved.upload.id
  return frame
}
