import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import vm from 'node:vm'

/** The two-file project of test/fixtures/source-maps/js-app, minified by esbuild (browser IIFE and CommonJS) with maps. */
export const JS_APP_DIR = fileURLToPath(new URL('../../test/fixtures/source-maps/js-app/', import.meta.url))
export const readJsApp = (path: string) => readFileSync(`${JS_APP_DIR}${path}`, 'utf8')

const CLI = fileURLToPath(new URL('../../node_modules/@bugsnag/source-maps/bin/cli', import.meta.url))

export interface CliResult {
  code: number
  output: string
}

/**
 * Runs the real @bugsnag/source-maps CLI (2.3.3) in `cwd` (its project root). It retries 5xx,
 * 408, 429 and network errors; the retry interval is cut to 10 ms so a test never waits on it.
 */
export function runSourceMapsCli(args: string[], cwd = JS_APP_DIR): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd, env: { ...process.env, BUGSNAG_RETRY_INTERVAL_MS: '10', BUGSNAG_TIMEOUT_MS: '30000' }, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0
        resolve({ code, output: `${stdout}${stderr}` })
      },
    )
  })
}

/** A multipart body as the upload tools send it; `files` values become file parts named like the tools name them. */
export function uploadForm(fields: Record<string, string>, files: Record<string, string | Blob> = {}): FormData {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  for (const [name, value] of Object.entries(files)) {
    form.append(name, typeof value === 'string' ? new Blob([value], { type: 'application/octet-stream' }) : value, `/builds/app/${name.replace(/\W+/g, '_')}`)
  }
  return form
}

/**
 * checkout()'s TypeError, thrown by the esbuild browser bundle loaded from `scriptUrl`, as a
 * Bugsnag browser event: the bundle's frames and the page's (not those of Node or the test runner).
 */
export function browserCheckoutEvent(scriptUrl: string): Record<string, unknown> {
  const context = vm.createContext({})
  vm.runInContext(readJsApp('dist/app.min.js'), context, { filename: scriptUrl })
  let stack = ''
  try {
    vm.runInContext('app.checkout({ items: [{ name: "hat" }] })', context, { filename: 'https://shop.example.com/checkout' })
  } catch (err) {
    stack = (err as Error).stack ?? ''
  }
  const stacktrace = stack
    .split('\n')
    .slice(1)
    .map((line) => /^\s*at (?:(.+?) \()?(.+):(\d+):(\d+)\)?$/.exec(line))
    .filter((match) => match !== null)
    .filter((match) => match[2] === scriptUrl || match[2]!.startsWith('https://shop.example.com/'))
    .map((match) => ({ method: match[1], file: match[2], lineNumber: Number(match[3]), columnNumber: Number(match[4]) }))
  return {
    exceptions: [{ errorClass: 'TypeError', message: 'item hat has no price', type: 'browserjs', stacktrace }],
    app: { releaseStage: 'production', version: '1.2.3', type: 'browser' },
    user: { id: 'shopper-1' },
  }
}
