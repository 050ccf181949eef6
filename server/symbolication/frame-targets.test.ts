import { describe, expect, it } from 'vitest'
import type { MinifiedFrame } from '../../contract/events.ts'
import { expectsMap, looksMinified, type FrameFile } from './frame-targets.ts'
import { fileVariants } from './url-pattern.ts'

const frame = (file: string, line: number | null, column: number | null, inProject = true): MinifiedFrame => ({
  file,
  line,
  column,
  method: 'run',
  in_project: inProject,
  code: null,
})

describe('looksMinified', () => {
  it.each([
    ['/app/dist/app.min.js', 42, 7],
    ['/app/dist/app.min.cjs', 3, 1],
    ['/app/dist/server.bundle.js', 10, 2],
    ['/app/.next/server/chunks/main.3f2a9c1b.js', 5, 9],
    ['/app/build/static/js/main.3f2a9c1b4e5d6f70.js', 5, 9],
    ['/app/dist/assets/index-B7xK2pQz.js', 5, 9],
    ['/app/dist/assets/my-app-DxQ3bR_k.js', 5, 9],
    ['/app/dist/chunk-5GQ2XU7Q.mjs', 5, 9],
    ['/app/dist/index.js', 7, 301],
    ['/app/dist/index.js', 1, 81],
  ])('%s:%s:%s looks minified', (file, line, column) => {
    expect(looksMinified(frame(file, line, column))).toBe(true)
  })

  it.each([
    ['/app/src/server.ts', 12, 5],
    ['dist/index.js', 42, 7],
    ['cjs-probe.cjs', 3, 26],
    ['file:///app/notify.mjs', 94, 14],
    ['/app/src/user-service.js', 8, 3],
    ['/app/src/api-userCtrl.js', 8, 3],
    ['/app/src/api-v2client.js', 8, 3],
    ['/app/src/handlers.controller.js', 8, 3],
    ['/app/src/index.js', 1, 80],
    ['/app/src/long-lines.js', 7, 300],
    ['/app/src/index.js', null, null],
  ])('%s:%s:%s does not', (file, line, column) => {
    expect(looksMinified(frame(file, line, column))).toBe(false)
  })
})

describe('expectsMap: which frames are reported missing a map when none applies', () => {
  const fileOf = (kind: FrameFile['kind'], name: string, script = true): FrameFile => ({ kind, variants: fileVariants(name, kind === 'url' ? 'url' : 'path'), script })

  it('Node frames only when in project and minified-looking', () => {
    expect(expectsMap(fileOf('path', '/app/src/server.ts'), frame('/app/src/server.ts', 12, 5))).toBe(false)
    expect(expectsMap(fileOf('path', 'dist/index.js'), frame('dist/index.js', 42, 7))).toBe(false)
    expect(expectsMap(fileOf('path', '/app/dist/app.min.js'), frame('/app/dist/app.min.js', 1, 481))).toBe(true)
    expect(expectsMap(fileOf('path', '/app/dist/app.min.js'), frame('/app/dist/app.min.js', 1, 481, false))).toBe(false)
  })

  it('browser frames of script files, minified-looking or not; never a page', () => {
    expect(expectsMap(fileOf('url', 'https://shop.example.com/assets/app.js'), frame('https://shop.example.com/assets/app.js', 3, 4, false))).toBe(true)
    expect(expectsMap(fileOf('url', 'https://shop.example.com/checkout', false), frame('https://shop.example.com/checkout', 3, 4, false))).toBe(false)
  })

  it('every React Native frame', () => {
    expect(expectsMap(fileOf('react_native', 'index.android.bundle'), frame('index.android.bundle', 1, 3, false))).toBe(true)
  })
})
