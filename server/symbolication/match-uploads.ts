import { matchTier, type FileVariants } from './url-pattern.ts'

/** What the symbolicator knows of one upload before loading its files (a source_maps row). */
export interface UploadCandidate {
  id: string
  kind: 'js' | 'react_native'
  /** The pattern as uploaded; '' for React Native. */
  minifiedUrl: string
  /** '' when omitted at upload. */
  appVersion: string
  codeBundleId: string
  platform: string
  appVersionCode: string
  dev: boolean
  projectRoot: string | null
  uploadedAt: Date
}

/** The versions of one event that uploads are matched on. */
export interface EventVersions {
  /** app.version; null when the event has none. */
  appVersion: string | null
  /** app.codeBundleId (CodePush and other over-the-air bundles); null when none. */
  codeBundleId: string | null
}

export interface ReactNativeTarget extends EventVersions {
  /** device.osName: 'android' or 'ios'. */
  platform: string | null
  /** app.versionCode (Android) or app.bundleVersion (iOS). */
  appVersionCode: string | null
  /** Frames from Metro's development server (a `dev=true` bundle URL). */
  dev: boolean
}

/**
 * Rule 3, plus code bundle ids: an upload made for a code bundle id applies to events with that
 * id (and, when it also names an app version, that version); any other upload applies when its
 * appVersion equals the event's, or was omitted when the event has none. Returns how specific
 * the match is (2 by code bundle id, 1 by app version), or 0 for none.
 */
export function versionMatch(upload: Pick<UploadCandidate, 'appVersion' | 'codeBundleId'>, event: EventVersions): 0 | 1 | 2 {
  if (upload.codeBundleId !== '') {
    if (upload.codeBundleId !== event.codeBundleId) return 0
    return upload.appVersion === '' || upload.appVersion === event.appVersion ? 2 : 0
  }
  return upload.appVersion === (event.appVersion ?? '') ? 1 : 0
}

/** Rule 6: an upload applies only to events received after it (at the same instant counts as after). */
export const uploadedBefore = (upload: UploadCandidate, receivedAt: Date) => upload.uploadedAt.getTime() <= receivedAt.getTime()

/** Newest first (rule 4); ids, which sort by creation, break ties in the same millisecond. */
function newer(a: UploadCandidate, b: UploadCandidate): boolean {
  const diff = a.uploadedAt.getTime() - b.uploadedAt.getTime()
  return diff > 0 || (diff === 0 && a.id > b.id)
}

/**
 * The upload for a browser or Node frame (rules 1–4 and 6): its URL pattern matches the frame's
 * file (as sent, before looser forms: see matchTier), its versions match the event's, it was made
 * before the event was received; of those, uploads for the code bundle id first, then the newest.
 */
export function chooseJsUpload(
  candidates: readonly UploadCandidate[],
  file: FileVariants,
  event: EventVersions,
  receivedAt: Date,
): UploadCandidate | null {
  let best: UploadCandidate | null = null
  let bestRank: [number, number] = [Infinity, 0]
  for (const upload of candidates) {
    if (upload.kind !== 'js' || !uploadedBefore(upload, receivedAt)) continue
    const specific = versionMatch(upload, event)
    if (specific === 0) continue
    const tier = matchTier(upload.minifiedUrl, file)
    if (tier === null) continue
    const [bestTier, bestSpecific] = bestRank
    if (best === null || tier < bestTier || (tier === bestTier && (specific > bestSpecific || (specific === bestSpecific && newer(upload, best))))) {
      best = upload
      bestRank = [tier, specific]
    }
  }
  return best
}

/**
 * The upload for a React Native frame, whatever its URL: same platform and dev flag, versions as
 * for browser maps (rule 3), and the version code (appVersionCode / appBundleVersion) equal when
 * the upload gave one. Uploads for the code bundle id first, then those naming the version
 * code, then the newest.
 */
export function chooseReactNativeUpload(candidates: readonly UploadCandidate[], target: ReactNativeTarget, receivedAt: Date): UploadCandidate | null {
  let best: UploadCandidate | null = null
  let bestRank = -1
  for (const upload of candidates) {
    if (upload.kind !== 'react_native' || !uploadedBefore(upload, receivedAt)) continue
    if (upload.platform !== (target.platform ?? '').toLowerCase() || upload.dev !== target.dev) continue
    const specific = versionMatch(upload, target)
    if (specific === 0) continue
    if (upload.appVersionCode !== '' && upload.appVersionCode !== target.appVersionCode) continue
    const rank = specific * 2 + (upload.appVersionCode !== '' ? 1 : 0)
    if (best === null || rank > bestRank || (rank === bestRank && newer(upload, best))) {
      best = upload
      bestRank = rank
    }
  }
  return best
}
