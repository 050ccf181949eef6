import type { Logger } from 'pino'
import { LRUCache } from 'lru-cache'
import type { StackFrame, Symbolication } from '../../contract/events.ts'
import type { Config } from '../config.ts'
import type { Db } from '../db/client.ts'
import { fetchSourceMapForUrl } from './fetch-source-map.ts'
import { createUrlFetcher, type FetchOptions, type UrlFetcher } from './fetch-url.ts'
import { targetUrl, TargetReader, type EventWork, type FrameTarget, type SymbolicationEvent } from './frame-targets.ts'
import { LoadedSourceMap } from './loaded-source-map.ts'
import { chooseJsUpload, chooseReactNativeUpload, type UploadCandidate } from './match-uploads.ts'
import { parseSourceMap, SourceMapError } from './parse-source-map.ts'
import { addEventsMapped, findCandidates, loadStoredSources, loadUploadFiles } from './source-map-store.ts'
import { variantStrings } from './url-pattern.ts'
import { snippetHash } from './code-snippets.ts'
import { markCodeStored } from '../events/stored-frames.ts'
import { isTransientPgError } from '../db/pg-errors.ts'

export interface JavaScriptSymbolicatorOptions {
  /** Where uploads are read (source_maps, source_map_files) and their counts written. */
  database: { db: Db }
  logger: Logger
  /** Parsed maps kept in this process's memory, in estimated bytes. Default 256 MiB. */
  cacheBytes?: number
  /** Least time between two writes of the events-mapped counts. Default 1 s. */
  countsIntervalMs?: number
  /**
   * Fetching by URL (spec rule 7): a browser frame whose file no upload matches is mapped from
   * the minified file's `sourceMappingURL`, and sources missing from a map are fetched for code
   * context. false (the default) fetches nothing; a UrlFetcher is used as it is.
   */
  fetch?: false | FetchOptions | UrlFetcher
  /**
   * Maps frames without writing anything: no code snippets, no events-mapped counts. For looking at
   * how a stored event would map today (server/errors/remapped.service.ts); its frames' code
   * context is then left out.
   */
  readOnly?: boolean
}

/** The symbolicator's settings from the server configuration (ERRATA_SOURCE_MAP_CACHE_BYTES, ERRATA_FETCH_*). */
export function symbolicatorSettings(config: Config): Pick<JavaScriptSymbolicatorOptions, 'cacheBytes' | 'fetch'> {
  const { cacheBytes, fetch, fetchAllow, fetchTimeoutMs, maxFileBytes } = config.sourceMaps
  return { cacheBytes, fetch: fetch ? { allow: fetchAllow, maxBytes: maxFileBytes, timeoutMs: fetchTimeoutMs } : false }
}

type MapOutcome = LoadedSourceMap | { error: string }

const FAILED_MAP_TTL_MS = 60_000
const FETCHED_MAP_TTL_MS = 10 * 60_000

/**
 * Maps JavaScript frames with source maps, uploaded or fetched by URL (spec rule 7). One lives as
 * long as the ingest pipeline: its caches of parsed maps outlast batches.
 */
export class JavaScriptSymbolicator {
  private readonly db: Db
  private readonly logger: Logger
  /** Fetches maps and sources by URL; null when fetching is off. */
  private readonly fetcher: UrlFetcher | null
  /** Parsed maps, bounded by their estimated bytes; a fetched one for FETCHED_MAP_TTL_MS. */
  private readonly maps: LRUCache<string, LoadedSourceMap>
  /** Maps that could not be read: not parsed again for every event for a while. */
  private readonly failedMaps = new LRUCache<string, { error: string }>({ max: 1000, ttl: FAILED_MAP_TTL_MS })
  /** Maps being loaded, so that the events that need one wait for one load. */
  private readonly loading = new Map<string, Promise<MapOutcome>>()
  private readonly countsIntervalMs: number
  /** Events mapped per upload, not written yet (flushCounts), and when they last were. */
  private pendingCounts = new Map<string, number>()
  private countsWrittenAt = 0
  private readonly readOnly: boolean

  constructor(options: JavaScriptSymbolicatorOptions) {
    this.db = options.database.db
    this.logger = options.logger
    this.fetcher = !options.fetch ? null : 'fetchText' in options.fetch ? options.fetch : createUrlFetcher(options.fetch)
    this.maps = new LRUCache<string, LoadedSourceMap>({
      maxSize: options.cacheBytes ?? 256 * 1024 * 1024,
      sizeCalculation: (map) => Math.max(1, map.bytes),
    })
    this.countsIntervalMs = options.countsIntervalMs ?? 1_000
    this.readOnly = options.readOnly ?? false
  }

  /**
   * Maps the JavaScript frames of each event's `payload.exceptions[].stacktrace[]` in place
   * (see docs/source-maps.md) and sets `payload.symbolication`; events without JavaScript frames
   * to map are left untouched. Meant to run before grouping, off the HTTP thread. A missing,
   * unreadable or unfetchable map marks the event and never fails the batch; the promise rejects
   * only when the database does, with no event changed.
   */
  async symbolicate(events: readonly SymbolicationEvent[]): Promise<void> {
    const reader = new TargetReader()
    const byProject = new Map<string, EventWork[]>()
    for (const input of events) {
      const work = reader.read(input)
      if (work.targets.length === 0) continue
      const list = byProject.get(input.projectId)
      if (list) list.push(work)
      else byProject.set(input.projectId, [work])
    }
    const used = new Set<LoadedSourceMap>()
    for (const [projectId, works] of [...byProject]) {
      try {
        await this.prepareProject(projectId, works, reader, used)
      } catch (err) {
        // The database going away is retried with the batch; anything else (a map or frame
        // no rule foresaw) leaves this project's events unmapped, saying why, and never
        // holds the batch back.
        if (isTransientPgError(err)) throw err
        const reason = `symbolication failed: ${err instanceof Error ? err.message : String(err)}`
        this.logger.error({ err, projectId }, 'symbolication failed; the events are indexed unmapped')
        for (const work of works) markFailed(work, reason)
        byProject.delete(projectId)
      }
    }
    this.recount(used)
    const built = new Map<EventWork, (StackFrame | null)[]>()
    if (this.readOnly) {
      for (const works of byProject.values()) for (const work of works) built.set(work, buildFrames(work).map((frame) => frame && { ...frame, code: null }))
      for (const [work, frames] of built) applyWork(work, frames, new Map())
      return
    }
    for (const works of byProject.values()) {
      // The code context each mapped frame refers to is stored once per project and line window,
      // written with the event in its index transaction (stored-frames.ts, writeCodeSnippets).
      for (const work of works) {
        const frames = buildFrames(work)
        built.set(work, frames)
        for (const frame of frames) if (frame?.code) markCodeStored(frame, snippetHash(frame.code))
      }
    }
    for (const [work, frames] of built) applyWork(work, frames, this.pendingCounts)
    if (Date.now() - this.countsWrittenAt >= this.countsIntervalMs) await this.flushCounts()
  }

  /**
   * Writes the events-mapped counts gathered since the last write. symbolicate() writes them
   * itself at most once a second (one UPDATE for every upload); call this before shutting down.
   */
  async flushCounts(): Promise<void> {
    if (this.pendingCounts.size === 0) return
    const counts = this.pendingCounts
    this.pendingCounts = new Map()
    this.countsWrittenAt = Date.now()
    // A statistic: failing to count must not fail the events.
    await addEventsMapped(this.db, counts).catch((err: unknown) => this.logger.warn({ err }, 'could not count the events source maps mapped'))
  }

  /** What the in-memory cache holds (for tests and benchmarks). */
  cacheStats(): { maps: number; bytes: number } {
    return { maps: this.maps.size, bytes: this.maps.calculatedSize }
  }

  /**
   * A map from the cache, or loaded once however many events ask. `ttlOf` says how long a loaded
   * map may be kept (by default until the cache needs the room).
   */
  private cached(key: string, load: () => Promise<MapOutcome>, ttlOf: (map: LoadedSourceMap) => number | undefined = () => undefined): Promise<MapOutcome> {
    const hit = this.maps.get(key) ?? this.failedMaps.get(key)
    if (hit) return Promise.resolve(hit)
    const pending = this.loading.get(key)
    if (pending) return pending
    const started = load()
      .then((outcome) => {
        if (outcome instanceof LoadedSourceMap) {
          const ttl = ttlOf(outcome)
          this.maps.set(key, outcome, ttl === undefined ? {} : { ttl })
        } else this.failedMaps.set(key, outcome)
        return outcome
      })
      .finally(() => this.loading.delete(key))
    this.loading.set(key, started)
    return started
  }

  /**
   * Counts again the maps a batch used: its lookups decoded chunks and loaded sources. lru-cache
   * sizes an entry when it is set, so a map still cached is set again (keeping a fetched map's
   * time to live), which evicts the least recently used others beyond the bound.
   */
  private recount(used: Iterable<LoadedSourceMap>): void {
    for (const map of used) {
      const entry = this.maps.info(map.key)
      if (entry?.value !== map || entry.size === Math.max(1, map.bytes)) continue
      const ttl = this.maps.getRemainingTTL(map.key)
      this.maps.delete(map.key)
      this.maps.set(map.key, map, Number.isFinite(ttl) && ttl > 0 ? { ttl } : {})
    }
  }

  /**
   * An upload's map. An upload sent without its minified file gets it fetched from `scriptUrl`,
   * the address a frame it applies to names (spec: "when omitted, the service tries to fetch it
   * when an event arrives"), so that function names resolve where they are defined. A fetch
   * that fails leaves names to call sites; the map is then kept only FAILED_MAP_TTL_MS, so a
   * later event tries again.
   */
  private loadUpload(upload: UploadCandidate, scriptUrl: string | null): Promise<MapOutcome> {
    let minifiedMissing = false
    return this.cached(
      upload.id,
      async () => {
        const files = await loadUploadFiles(this.db, upload.id)
        if (!files?.map) return { error: 'the source map upload was deleted' }
        let minified = files.minified
        if (minified === null && this.fetcher && scriptUrl !== null) {
          const fetched = await this.fetcher.fetchText(scriptUrl)
          if (fetched.ok) minified = fetched.text
          else {
            minifiedMissing = true
            this.logger.info({ sourceMapId: upload.id, url: scriptUrl, reason: fetched.reason }, 'could not fetch the minified file of a source map upload sent without it')
          }
        }
        try {
          const parsed = parseSourceMap(files.map)
          return new LoadedSourceMap({
            key: upload.id,
            parsed,
            textBytes: files.mapBytes,
            projectRoot: upload.projectRoot,
            minified,
            sourceFiles: files.sources,
            storedSources: files.storedSources,
          })
        } catch (err) {
          const message = err instanceof SourceMapError ? `the source map ${err.message}` : `the source map could not be read: ${(err as Error).message}`
          this.logger.warn({ sourceMapId: upload.id, err: message }, 'source map unusable')
          return { error: message }
        }
      },
      () => (minifiedMissing ? FAILED_MAP_TTL_MS : undefined),
    )
  }

  private loadFetched(url: string): Promise<MapOutcome> {
    // A fetched map is fetched again after a while: the file at that URL may be redeployed.
    return this.cached(`url:${url}`, () => fetchSourceMapForUrl(this.fetcher!, url), () => FETCHED_MAP_TTL_MS)
  }

  /** Reads the embedded sources the frames need that were stored apart from their maps: one query per map. */
  private async loadSourcesStoredApart(targets: readonly FrameTarget[]): Promise<void> {
    const wanted = new Map<LoadedSourceMap, Set<number>>()
    for (const { map, position } of targets) {
      if (!map || !position || !map.needsStoredSource(position.sourceIndex)) continue
      const indexes = wanted.get(map) ?? new Set()
      indexes.add(position.sourceIndex)
      wanted.set(map, indexes)
    }
    await Promise.all(
      [...wanted].map(async ([map, indexes]) => {
        const texts = await loadStoredSources(this.db, map.key, indexes)
        for (const index of indexes) map.setStoredSource(index, texts.get(index) ?? null)
      }),
    )
  }

  /** Fills in sources the maps name but neither embed nor had uploaded, fetched by URL for code context. */
  private async fetchMissingSources(targets: readonly FrameTarget[]): Promise<void> {
    if (!this.fetcher) return
    const fetches: Promise<void>[] = []
    const asked = new Set<string>()
    for (const { map, position, original } of targets) {
      if (!map || !position || !map.needsSourceFetch(position.sourceIndex)) continue
      const key = `${map.key}\n${position.sourceIndex}`
      if (asked.has(key)) continue
      asked.add(key)
      let address: string | null = null
      try {
        address = new URL(map.sourcePath(position.sourceIndex), original.file!).href
      } catch {
        address = null
      }
      if (!address || !/^https?:/i.test(address)) {
        map.setFetchedSource(position.sourceIndex, null)
        continue
      }
      const index = position.sourceIndex
      fetches.push(this.fetcher.fetchText(address).then((result) => map.setFetchedSource(index, result.ok ? result.text : null)))
    }
    await Promise.all(fetches)
  }

  /** Picks each frame's upload, or a URL to fetch the map of when none applies. */
  private choose(works: readonly EventWork[], candidates: readonly UploadCandidate[]): void {
    for (const work of works) {
      for (const target of work.targets) {
        target.upload =
          target.file.kind === 'react_native'
            ? chooseReactNativeUpload(candidates, work.reactNative!, work.input.receivedAt)
            : chooseJsUpload(candidates, target.file.variants, work.versions, work.input.receivedAt)
        // Script files only: a page's own URL (its inline scripts) has no sourceMappingURL to find.
        if (!target.upload && this.fetcher && target.file.kind === 'url' && target.expected && /^https?:\/\//i.test(target.original.file!)) {
          target.fetchUrl = target.original.file!
        }
      }
    }
  }

  /**
   * Reads what one project's events need (candidates, maps, fetched files) and finds every
   * frame's position, changing no event: a database failure on any project leaves all as they were.
   */
  private async prepareProject(projectId: string, works: readonly EventWork[], reader: TargetReader, used: Set<LoadedSourceMap>): Promise<void> {
    const files = new Set<string>()
    for (const byName of reader.files.values()) {
      for (const file of byName.values()) if (file && file.kind !== 'react_native') for (const text of variantStrings(file.variants)) files.add(text)
    }
    const candidates = await findCandidates(this.db, {
      projectId,
      receivedUpTo: new Date(works.reduce((latest, work) => Math.max(latest, work.input.receivedAt.getTime()), 0)),
      appVersions: works.map((work) => work.versions.appVersion ?? ''),
      codeBundleIds: works.flatMap((work) => (work.versions.codeBundleId ? [work.versions.codeBundleId] : [])),
      files,
      reactNative: works.some((work) => work.reactNative !== null),
    })
    this.choose(works, candidates)

    const outcomes = new Map<string, Promise<MapOutcome>>()
    for (const work of works) {
      for (const target of work.targets) {
        if (target.upload && !outcomes.has(target.upload.id)) outcomes.set(target.upload.id, this.loadUpload(target.upload, scriptUrlOf(target)))
        if (target.fetchUrl && !outcomes.has(`url:${target.fetchUrl}`)) outcomes.set(`url:${target.fetchUrl}`, this.loadFetched(target.fetchUrl))
      }
    }
    const loaded = new Map<string, MapOutcome>()
    await Promise.all([...outcomes].map(async ([key, outcome]) => loaded.set(key, await outcome)))
    for (const outcome of loaded.values()) if (outcome instanceof LoadedSourceMap) used.add(outcome)

    const found: FrameTarget[] = []
    for (const work of works) {
      for (const target of work.targets) {
        const key = target.upload ? target.upload.id : target.fetchUrl ? `url:${target.fetchUrl}` : null
        if (key === null) continue
        const outcome = loaded.get(key)!
        if (!(outcome instanceof LoadedSourceMap)) {
          work.problems.set(targetUrl(target), outcome.error)
          continue
        }
        target.map = outcome
        target.position = outcome.position(target.original.line!, target.original.column)
        if (target.position) found.push(target)
        else if (target.expected || target.upload) {
          work.problems.set(targetUrl(target), `line ${target.original.line}, column ${target.original.column ?? '?'} is not in the source map`)
        }
      }
    }
    await this.loadSourcesStoredApart(found)
    await this.fetchMissingSources(found)
  }
}

/** The http(s) address of a browser frame's script, where its minified file can be fetched; null for other frames. */
function scriptUrlOf(target: FrameTarget): string | null {
  return target.file.kind === 'url' && /^https?:\/\//i.test(target.original.file!) ? target.original.file! : null
}

/** The same, built by a function (the ingest pipeline's stages build it so). */
export function createJavaScriptSymbolicator(options: JavaScriptSymbolicatorOptions): JavaScriptSymbolicator {
  return new JavaScriptSymbolicator(options)
}

/**
 * Writes the mapped frames and `symbolication` into one event, and counts it once for each
 * upload that mapped a frame of it.
 */
/** The mapped frame of each of the event's targets (null where none was found), changing nothing yet. */
function buildFrames(work: EventWork): (StackFrame | null)[] {
  // Frames are replaced only after every name is read: a frame's name can come from its caller's position.
  return work.targets.map((target) => (target.position ? mappedFrame(target) : null))
}

/** An event whose frames could not be looked up at all: left as sent, with the reason. */
function markFailed(work: EventWork, reason: string): void {
  const url = work.targets[0] ? targetUrl(work.targets[0]) : ''
  work.input.event.payload.symbolication = { status: 'failed', mapped_frames: 0, missing: [], errors: [{ url, message: reason }] }
}

function applyWork(work: EventWork, frames: readonly (StackFrame | null)[], counts: Map<string, number>): void {
  const missing = new Map<string, Symbolication['missing'][number]>()
  const usedUploads = new Set<string>()
  let mapped = 0
  let unmapped = 0
  work.targets.forEach((target, i) => {
    const frame = frames[i]
    if (frame) {
      target.exception.stacktrace[target.index] = frame
      mapped += 1
      if (target.upload) usedUploads.add(target.upload.id)
      return
    }
    // A frame an upload applies to should have been mapped by it, whether it looks minified or not.
    if (!target.expected && !target.upload) return
    unmapped += 1
    const url = targetUrl(target)
    // No upload applies, and no map could be fetched: the map to upload.
    if (!target.upload && !target.map && !missing.has(url)) missing.set(url, missingEntry(url, target, work))
  })
  for (const id of usedUploads) counts.set(id, (counts.get(id) ?? 0) + 1)
  // Nothing mapped and nothing that should have been: no JavaScript to speak of.
  if (mapped === 0 && unmapped === 0) return
  work.input.event.payload.symbolication = {
    status: unmapped === 0 ? 'mapped' : mapped > 0 ? 'partial' : missing.size > 0 ? 'missing' : 'failed',
    mapped_frames: mapped,
    missing: [...missing.values()],
    errors: [...work.problems].map(([url, message]) => ({ url, message })),
  }
}

function missingEntry(url: string, target: FrameTarget, work: EventWork): Symbolication['missing'][number] {
  const entry: Symbolication['missing'][number] = { url, app_version: work.versions.appVersion }
  if (target.file.kind === 'react_native' && work.reactNative) {
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
function mappedFrame(target: FrameTarget): StackFrame {
  const { original } = target
  const map = target.map!
  const position = target.position!
  const code = map.codeContext(position.sourceIndex, position.line)
  const frame: StackFrame = {
    file: map.displayPath(position.sourceIndex),
    line: position.line,
    column: position.column + 1,
    method: map.definitionName(original.line!, original.column, original.method) ?? target.caller?.position?.name ?? original.method,
    in_project: map.inProject(position.sourceIndex),
    // The object the map caches for this line window, shared by every frame on it: stored by
    // reference (server/events/stored-frames.ts), never changed.
    code: code as Record<string, string> | null,
    minified: original,
  }
  if (target.upload) frame.source_map_id = target.upload.id
  return frame
}
