import type { EventException, MinifiedFrame, StackFrame } from '../../contract/events.ts'
import type { LoadedSourceMap, OriginalPosition } from './loaded-source-map.ts'
import type { EventVersions, ReactNativeTarget, UploadCandidate } from './match-uploads.ts'
import { fileVariants, type FileVariants } from './url-pattern.ts'
import type { NormalizedEvent } from '../ingest/payload/event-row.ts'

/** One event of a batch, as the ingestion pipeline holds it before grouping. */
export interface SymbolicationEvent {
  id: string
  projectId: string
  receivedAt: Date
  /** Only its payload is read, and its frames replaced. */
  event: Pick<NormalizedEvent, 'payload'>
}

/** How a JavaScript frame finds its map: browser frames by URL, Node frames by path, React Native frames by platform and version. */
export type FrameKind = 'url' | 'path' | 'react_native'

/** A distinct file of a batch, read once however many frames name it. */
export interface FrameFile {
  kind: FrameKind
  variants: FileVariants
  /** A script file (not a page, whose inline scripts have no map): browser frames expect a map only then. */
  script: boolean
}

/** One frame to symbolicate, and what the batch found for it. */
export interface FrameTarget {
  exception: EventException
  index: number
  /** The frame as the notifier sent it (restored from `minified` when symbolicated before). */
  original: MinifiedFrame
  file: FrameFile
  /**
   * Whether the frame should have a map, and so counts as missing one when none applies
   * (expectsMap). A frame an upload applies to is looked up whatever this says.
   */
  expected: boolean
  /** The frame that called this one (the next one of the stack), when it is a target too. */
  caller: FrameTarget | null
  upload: UploadCandidate | null
  /** The minified file's URL, when its map is to be fetched instead (nothing uploaded applies). */
  fetchUrl: string | null
  map: LoadedSourceMap | null
  position: OriginalPosition | null
}

/** One event of a batch with its versions and targets. */
export interface EventWork {
  input: SymbolicationEvent
  versions: EventVersions
  reactNative: ReactNativeTarget | null
  targets: FrameTarget[]
  /** What went wrong, by file: unreadable map, failed fetch, position not in the map. */
  problems: Map<string, string>
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
const textOf = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' && Number.isFinite(value) ? String(value) : null

/** Where an exception's JavaScript frames come from, by its type (bugsnag-js sets it) or the notifier's name. */
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

/** The kind of a file no upload could map is null: native code, browser extensions, Node's own modules, dependencies. */
function fileKind(file: string, exceptionFrames: FrameKind | 'per_frame'): FrameKind | null {
  if (NOT_A_SCRIPT.test(file)) return null
  const kind = exceptionFrames === 'per_frame' ? (/^https?:\/\//i.test(file) ? 'url' : null) : exceptionFrames
  if (kind === 'url') return URL_WITH_SCHEME.test(file) && !/^[a-z-]+-extension:/i.test(file) ? 'url' : null
  if (kind === 'path') return /^(node|internal)[:/]/.test(file) || /(^|\/)node_modules\//.test(file) ? null : 'path'
  return kind
}

/** Minified file names: `app.min.js`, and bundlers' hashed names (`main.3f2a9c1b.js`, `index-B7xK2pQz.js`, `chunk-5GQ2XU7Q.mjs`). */
const MINIFIED_NAME = /\.min\.[cm]?js$|\.bundle(?:\.[cm]?js)?$/i
/** `[name].[hash].js` (any length of hash) or `[name]-[hash].js` (8 characters, which may hold `-` and `_`). */
const HASHED_NAME = /[.-]([A-Za-z0-9_-]{8})\.[cm]?js$|\.([A-Za-z0-9_]{8,})\.[cm]?js$/
const count = (text: string, chars: RegExp) => text.match(chars)?.length ?? 0
/**
 * A hash, not a word: hexadecimal with a digit (webpack), or 8 characters mixing at least two of
 * digits, capitals and small letters, two or more of each (Vite, Rollup, esbuild); `userCtrl` and
 * `v2client` are words.
 */
const isHash = (text: string) =>
  (/^[0-9a-f]+$/.test(text) && /\d/.test(text)) ||
  (text.length === 8 && [/\d/g, /[A-Z]/g, /[a-z]/g].filter((chars) => count(text, chars) >= 2).length >= 2)
/** Past this column a line is minified code: people do not write lines that long. */
const MINIFIED_COLUMN = 300
/** A minified file is one line: on line 1, a column past this is no hand-written code either. */
const MINIFIED_FIRST_LINE_COLUMN = 80

/**
 * Whether a Node frame's file looks minified or bundled: a `.min.js` or hashed bundle name, or a
 * position no hand-written line reaches. Node runs plain and TypeScript sources as they are
 * (`/app/src/server.ts`, `dist/index.js:42:7`); no one uploads maps for those.
 */
export function looksMinified(frame: Pick<MinifiedFrame, 'file' | 'line' | 'column'>): boolean {
  const name = frame.file?.slice(frame.file.lastIndexOf('/') + 1) ?? ''
  const hashed = HASHED_NAME.exec(name)
  const hash = hashed?.[1] ?? hashed?.[2]
  if (MINIFIED_NAME.test(name) || (hash !== undefined && isHash(hash))) return true
  const column = frame.column ?? 0
  return column > MINIFIED_COLUMN || (frame.line === 1 && column > MINIFIED_FIRST_LINE_COLUMN)
}

/**
 * Whether a frame should have a map, and so is reported missing one when none applies: every
 * React Native frame, browser frames of script files (not a page's inline scripts), and Node
 * frames in project that look minified (a Node stack mostly runs through files as they were
 * written, which have no map).
 */
export function expectsMap(file: FrameFile, frame: MinifiedFrame): boolean {
  if (file.kind === 'react_native') return true
  if (file.kind === 'url') return file.script
  return frame.in_project && looksMinified(frame)
}

/**
 * The frame as sent: kept as it was when symbolicated before, else the frame object itself (the
 * mapped frame replaces it in the stack trace, so it is not copied).
 */
function minifiedOf(frame: StackFrame): MinifiedFrame {
  return frame.minified ?? frame
}

/** Reads a batch's events into work: each JavaScript frame a target, each distinct file read once (`files`). */
export class TargetReader {
  /** Every distinct file of the batch, by how its exception's frames are read, then by name (null: no map could apply). */
  readonly files = new Map<FrameKind | 'per_frame', Map<string, FrameFile | null>>()

  private frameFile(file: string, exceptionFrames: FrameKind | 'per_frame'): FrameFile | null {
    let byName = this.files.get(exceptionFrames)
    if (!byName) this.files.set(exceptionFrames, (byName = new Map()))
    let found = byName.get(file)
    if (found === undefined) {
      const kind = fileKind(file, exceptionFrames)
      const variants = kind === null ? null : fileVariants(file, kind === 'path' ? 'path' : 'url')
      found = kind === null ? null : { kind, variants: variants!, script: SCRIPT_FILE.test(variants!.normalized ?? variants!.exact) }
      byName.set(file, found)
    }
    return found
  }

  read(input: SymbolicationEvent): EventWork {
    const payload = input.event.payload
    const app = isObject(payload.app) ? payload.app : {}
    const versions: EventVersions = { appVersion: payload.app_version ?? textOf(app.version), codeBundleId: textOf(app.codeBundleId) }
    const notifierName = typeof payload.notifier?.name === 'string' ? payload.notifier.name : ''
    const work: EventWork = { input, versions, reactNative: null, targets: [], problems: new Map() }
    for (const exception of payload.exceptions) {
      const exceptionFrames = exceptionKind(exception.type, notifierName)
      if (exceptionFrames === null) continue
      let previous: FrameTarget | null = null
      for (let index = 0; index < exception.stacktrace.length; index++) {
        const frame = exception.stacktrace[index]!
        const original = frame.native ? null : minifiedOf(frame)
        const file = original?.file && original.line !== null ? this.frameFile(original.file, exceptionFrames) : null
        if (!original || !file) {
          previous = null
          continue
        }
        const target: FrameTarget = { exception, index, original, file, expected: expectsMap(file, original), caller: null, upload: null, fetchUrl: null, map: null, position: null }
        if (previous) previous.caller = target
        previous = target
        work.targets.push(target)
        if (file.kind === 'react_native' && work.reactNative === null) {
          const device = isObject(payload.device) ? payload.device : {}
          work.reactNative = {
            ...versions,
            platform: textOf(device.osName)?.toLowerCase() ?? null,
            appVersionCode: textOf(app.versionCode) ?? textOf(app.bundleVersion),
            dev: /[?&]dev=true\b/.test(original.file!),
          }
        }
      }
    }
    return work
  }
}

/** The file as a missing-map entry and problems name it: the URL without query or fragment. */
export const targetUrl = (target: FrameTarget) => target.file.variants.normalized ?? target.file.variants.exact
