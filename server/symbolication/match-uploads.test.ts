import { describe, expect, it } from 'vitest'
import { chooseJsUpload, chooseReactNativeUpload, versionMatch, type UploadCandidate } from './match-uploads.ts'
import { fileVariants } from './url-pattern.ts'

const T0 = Date.parse('2025-03-01T10:00:00.000Z')
const at = (minutes: number) => new Date(T0 + minutes * 60_000)

let nextId = 0
function upload(fields: Partial<UploadCandidate> & { minute?: number }): UploadCandidate {
  const { minute = 0, ...rest } = fields
  nextId += 1
  return {
    id: `upload-${String(nextId).padStart(3, '0')}`,
    kind: 'js',
    minifiedUrl: 'https://cdn.example.com/app.min.js',
    appVersion: '1.2.3',
    codeBundleId: '',
    platform: '',
    appVersionCode: '',
    dev: false,
    projectRoot: null,
    uploadedAt: at(minute),
    ...rest,
  }
}

const APP = fileVariants('https://cdn.example.com/app.min.js', 'url')
const v123 = { appVersion: '1.2.3', codeBundleId: null }
const noVersion = { appVersion: null, codeBundleId: null }

describe('versionMatch (spec rule 3)', () => {
  it('needs the same app version, or none at upload for an event without one', () => {
    expect(versionMatch({ appVersion: '1.2.3', codeBundleId: '' }, v123)).toBe(1)
    expect(versionMatch({ appVersion: '1.2.4', codeBundleId: '' }, v123)).toBe(0)
    // Omitted at upload: applies to events without a version, not to every version.
    expect(versionMatch({ appVersion: '', codeBundleId: '' }, noVersion)).toBe(1)
    expect(versionMatch({ appVersion: '', codeBundleId: '' }, v123)).toBe(0)
    expect(versionMatch({ appVersion: '1.2.3', codeBundleId: '' }, noVersion)).toBe(0)
  })

  it('matches an upload for a code bundle id by that id (and its version when it names one)', () => {
    const event = { appVersion: '1.2.3', codeBundleId: 'bundle-7' }
    expect(versionMatch({ appVersion: '', codeBundleId: 'bundle-7' }, event)).toBe(2)
    expect(versionMatch({ appVersion: '1.2.3', codeBundleId: 'bundle-7' }, event)).toBe(2)
    expect(versionMatch({ appVersion: '1.0.0', codeBundleId: 'bundle-7' }, event)).toBe(0)
    expect(versionMatch({ appVersion: '', codeBundleId: 'bundle-8' }, event)).toBe(0)
    expect(versionMatch({ appVersion: '', codeBundleId: 'bundle-7' }, v123)).toBe(0)
  })
})

describe('chooseJsUpload', () => {
  it('takes the newest matching upload, exact or wildcard alike (rule 4)', () => {
    const exact = upload({ minute: 1 })
    const wildcard = upload({ minute: 2, minifiedUrl: 'https://cdn.example.com/*.js' })
    const older = upload({ minute: 0, minifiedUrl: '*' })
    expect(chooseJsUpload([exact, wildcard, older], APP, v123, at(10))?.id).toBe(wildcard.id)
    const newerExact = upload({ minute: 3 })
    expect(chooseJsUpload([exact, wildcard, older, newerExact], APP, v123, at(10))?.id).toBe(newerExact.id)
  })

  it('never applies an upload to events received before it (rule 6)', () => {
    const first = upload({ minute: 1 })
    const second = upload({ minute: 5 })
    expect(chooseJsUpload([first, second], APP, v123, at(0))).toBeNull()
    expect(chooseJsUpload([first, second], APP, v123, at(1))?.id).toBe(first.id)
    expect(chooseJsUpload([first, second], APP, v123, at(4))?.id).toBe(first.id)
    expect(chooseJsUpload([first, second], APP, v123, at(5))?.id).toBe(second.id)
  })

  it('skips uploads for other versions and URLs', () => {
    const otherVersion = upload({ appVersion: '2.0.0' })
    const otherUrl = upload({ minifiedUrl: 'https://cdn.example.com/vendor.min.js' })
    const versionless = upload({ appVersion: '' })
    expect(chooseJsUpload([otherVersion, otherUrl, versionless], APP, v123, at(10))).toBeNull()
    expect(chooseJsUpload([otherVersion, otherUrl, versionless], APP, noVersion, at(10))?.id).toBe(versionless.id)
  })

  it('ranks the file as sent above its normalized forms, whatever their age', () => {
    const withQuery = fileVariants('https://cdn.example.com/app.min.js?v=9', 'url')
    const byFullUrl = upload({ minute: 1, minifiedUrl: 'https://cdn.example.com/app.min.js?v=9' })
    const byPath = upload({ minute: 2 })
    expect(chooseJsUpload([byFullUrl, byPath], withQuery, v123, at(10))?.id).toBe(byFullUrl.id)
    expect(chooseJsUpload([byPath], withQuery, v123, at(10))?.id).toBe(byPath.id)
  })

  it('ranks an upload for the code bundle id above one for the app version', () => {
    const byVersion = upload({ minute: 2 })
    const byBundle = upload({ minute: 1, appVersion: '', codeBundleId: 'b1' })
    expect(chooseJsUpload([byVersion, byBundle], APP, { appVersion: '1.2.3', codeBundleId: 'b1' }, at(10))?.id).toBe(byBundle.id)
  })

  it('matches Node frames by path, relative uploads ending absolute paths', () => {
    const node = upload({ minifiedUrl: 'dist-node/app.min.js' })
    expect(chooseJsUpload([node], fileVariants('dist-node/app.min.js', 'path'), v123, at(1))?.id).toBe(node.id)
    expect(chooseJsUpload([node], fileVariants('/srv/shop/dist-node/app.min.js', 'path'), v123, at(1))?.id).toBe(node.id)
    expect(chooseJsUpload([node], fileVariants('file:///srv/shop/dist-node/app.min.js', 'path'), v123, at(1))?.id).toBe(node.id)
    expect(chooseJsUpload([node], fileVariants('/srv/shop/other-node/app.min.js', 'path'), v123, at(1))).toBeNull()
  })

  it('breaks a tie in time by id (made later, sorts later)', () => {
    const a = upload({ minute: 1 })
    const b = upload({ minute: 1 })
    expect(chooseJsUpload([b, a], APP, v123, at(2))?.id).toBe(b.id)
  })

  it('ignores React Native uploads', () => {
    expect(chooseJsUpload([upload({ kind: 'react_native', minifiedUrl: '' })], APP, v123, at(1))).toBeNull()
  })
})

describe('chooseReactNativeUpload', () => {
  const rn = (fields: Partial<UploadCandidate> & { minute?: number }) => upload({ kind: 'react_native', minifiedUrl: '', platform: 'android', ...fields })
  const target = { appVersion: '1.2.3', codeBundleId: null, platform: 'Android', appVersionCode: '42', dev: false }

  it('matches by platform, dev flag and versions, not by URL', () => {
    const android = rn({})
    expect(chooseReactNativeUpload([android], target, at(1))?.id).toBe(android.id)
    expect(chooseReactNativeUpload([rn({ platform: 'ios' })], target, at(1))).toBeNull()
    expect(chooseReactNativeUpload([rn({ dev: true })], target, at(1))).toBeNull()
    expect(chooseReactNativeUpload([rn({ appVersion: '1.2.4' })], target, at(1))).toBeNull()
    expect(chooseReactNativeUpload([rn({ appVersionCode: '41' })], target, at(1))).toBeNull()
    expect(chooseReactNativeUpload([rn({ minute: 5 })], target, at(1))).toBeNull()
  })

  it('prefers an upload naming the version code, then the newest', () => {
    const anyCode = rn({ minute: 3 })
    const code42 = rn({ minute: 1, appVersionCode: '42' })
    expect(chooseReactNativeUpload([anyCode, code42], target, at(5))?.id).toBe(code42.id)
    const newer42 = rn({ minute: 2, appVersionCode: '42' })
    expect(chooseReactNativeUpload([anyCode, code42, newer42], target, at(5))?.id).toBe(newer42.id)
  })
})
