import { createHash } from 'node:crypto'
import type { EventException, StackFrame } from '../../../contract/events.ts'
import type { Grouping, GroupingReason } from '../payload/event-row.ts'
import { withoutContentHash } from './content-hash.ts'

/**
 * Path segments that differ per install or per over-the-air update, not per code: iOS app
 * container UUIDs (`/var/containers/Bundle/Application/<UUID>/Shop.app/main.jsbundle`) and
 * content hashes of 32+ hex digits, as folders (CodePush packages) or as a file's name before
 * its extension (Expo updates: `.expo-internal/<hash>.bundle`).
 */
const PER_INSTALL_SEGMENT = /(?<=\/)(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32,})(?=\/|\.[A-Za-z0-9]+$)/gi

/** Next.js's build id, the folder of its manifests: `/_next/static/<buildId>/_buildManifest.js`. */
const NEXT_BUILD_ID = /(?<=\/_next\/static\/)[^/]+(?=\/_\w+Manifest\.js$)/

/** The scheme and host of a URL: the same script served from another CDN host is the same code. */
const ORIGIN = /^https?:\/\/[^/]*/i

/** The last segment of a path: "libcrash.so" of "/data/app/~~Xy==/com.example-1/lib/arm64/libcrash.so". */
function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1)
}

/**
 * A frame's part of the key. A native frame counts by its module's name, not its path: app
 * install paths hold per-install random parts on Android and iOS. Without a method (not
 * symbolicated), its address inside the module stands in, which is stable for one build.
 */
function frameKey(frame: StackFrame): string {
  const native = frame.native
  if (native) {
    // Without a method: the address inside the module, else (older NDK payloads, no load address)
    // the line, which Android fills with that same relative address; the absolute address last, as
    // it moves with every process's load address.
    const where = frame.method || native.relative_address || (frame.line !== null ? `line ${frame.line}` : native.frame_address) || ''
    return `native\n${baseName(native.module ?? frame.file ?? '')}\n${where}`
  }
  return `${normalizeFileForGrouping(frame.file ?? '')}\n${frame.method ?? ''}`
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex')
}

/**
 * The group of an event. A `groupingHash` sent by the notifier wins; otherwise the
 * outermost exception's class plus the file and method (never line or column, so a
 * deploy does not split a group) of its first in-project frame, else of its first frame,
 * else its class and message. Each rule hashes a different prefix so they never collide.
 * A grouping discriminator (event.setGroupingDiscriminator in the notifiers) splits whatever
 * group the rules give: same key, different discriminator, different error.
 */
export function computeGrouping(
  exceptions: readonly EventException[],
  groupingHash: string | null,
  discriminator: string | null = null,
): Grouping {
  const { key, reason } = groupingKey(exceptions, groupingHash)
  return { hash: sha1(discriminator ? `${key}\ndiscriminator\n${discriminator}` : key), reason }
}

function groupingKey(exceptions: readonly EventException[], groupingHash: string | null): { key: string; reason: GroupingReason } {
  if (groupingHash) return { key: `custom\n${groupingHash}`, reason: 'grouping_hash' }
  const outer = exceptions[0]
  if (!outer) return { key: 'empty', reason: 'error_class_and_message' }
  const inProject = outer.stacktrace.find((frame) => frame.in_project)
  if (inProject) return { key: `frame\n${outer.class}\n${frameKey(inProject)}`, reason: 'in_project_frame' }
  const top = outer.stacktrace[0]
  if (top) return { key: `frame\n${outer.class}\n${frameKey(top)}`, reason: 'top_frame' }
  return { key: `message\n${outer.class}\n${outer.message}`, reason: 'error_class_and_message' }
}


/**
 * A file path as it should count for grouping: without the query string or fragment
 * (cache busters such as `app.js?v=123`), without a `file://` prefix or a URL's origin, with
 * per-install folders, Next.js's build id and a bundle's content hash as `*`, so the same code
 * groups together across deploys, CDN hosts, loaders and devices. The stored frame keeps its file.
 */
export function normalizeFileForGrouping(file: string): string {
  // A search for the first ? or #, not /[?#].*$/: on a long line of ?s that regex
  // retries from each one and takes quadratic time.
  const end = file.search(/[?#]/)
  const path = end === -1 ? file : file.slice(0, end)
  const local = path.startsWith('file://') ? path.slice('file://'.length) : path.replace(ORIGIN, '')
  const folders = local.replace(PER_INSTALL_SEGMENT, '*').replace(NEXT_BUILD_ID, '*')
  const slash = folders.lastIndexOf('/')
  return folders.slice(0, slash + 1) + withoutContentHash(folders.slice(slash + 1))
}
