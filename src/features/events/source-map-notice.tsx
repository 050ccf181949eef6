import { Link } from '@tanstack/react-router'
import { FileWarning } from 'lucide-react'
import type { Symbolication } from '../../../contract/events.ts'
import { cn } from '../../lib/cn.ts'

/** Missing maps named before "and N more": an event of many bundles lists a few. */
const MISSING_SHOWN = 3

type Missing = Symbolication['missing'][number]

/** "https://…/app.min.js, version 1.2.3" or, for React Native, "React Native android, version 1.2.3 (build 42)". */
export function describeMissing(missing: Missing): string {
  const version = missing.app_version ? `version ${missing.app_version}` : 'no app version'
  if (missing.platform) {
    return `React Native ${missing.platform}, ${version}${missing.app_version_code ? ` (build ${missing.app_version_code})` : ''}`
  }
  return `${missing.url}, ${version}`
}

/**
 * What stops an event's JavaScript frames being readable: the files no source map was uploaded
 * for (each with a link to the upload page, URL and version filled in), and maps that were found
 * but could not be used. Nothing when every frame was mapped.
 */
export function SourceMapNotice({ projectId, symbolication }: { projectId: string; symbolication: Symbolication | undefined }) {
  if (!symbolication || symbolication.status === 'mapped') return null
  const { missing, errors } = symbolication
  if (missing.length === 0 && errors.length === 0) return null
  return (
    <div className="flex gap-3 rounded-md border border-warning/40 bg-warning-soft/40 px-3 py-2 text-sm">
      <FileWarning aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-warning" />
      <div className="flex min-w-0 flex-1 flex-col gap-1">
        {missing.length > 0 ? (
          <>
            <p className="font-medium">
              {symbolication.status === 'partial' ? 'Some frames are still minified: ' : 'These frames are minified: '}
              upload the source map to read them.
            </p>
            <ul className="flex flex-col gap-1">
              {missing.slice(0, MISSING_SHOWN).map((entry, index) => (
                <li key={index} className="flex flex-wrap items-baseline gap-x-2">
                  <span className="[overflow-wrap:anywhere]">
                    no source map for <span className="font-mono text-xs">{describeMissing(entry)}</span>
                  </span>
                  <Link
                    to="/projects/$projectId/source-maps"
                    params={{ projectId }}
                    search={{ url: entry.platform ? undefined : entry.url, version: entry.app_version ?? undefined }}
                    className="text-xs font-medium text-accent underline-offset-4 hover:underline"
                  >
                    Upload a source map <span className="sr-only">for {describeMissing(entry)}</span>
                  </Link>
                </li>
              ))}
            </ul>
            {missing.length > MISSING_SHOWN ? (
              <p className="text-xs text-muted-foreground">and {missing.length - MISSING_SHOWN} more files</p>
            ) : null}
          </>
        ) : null}
        {errors.length > 0 ? (
          <ul className="flex flex-col gap-1">
            {errors.slice(0, MISSING_SHOWN).map((error, index) => (
              <li key={index} className="[overflow-wrap:anywhere]">
                <span className="font-mono text-xs">{error.url}</span>: {error.message}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    </div>
  )
}

/** Whether any frame of these exceptions was mapped, so there is a minified version to show. */
export const hasMappedFrames = (exceptions: readonly { stacktrace: readonly { minified?: unknown }[] }[]): boolean =>
  exceptions.some((exception) => exception.stacktrace.some((frame) => frame.minified !== undefined))

/** Switches the stack traces between the frames as the source maps read them and as the notifier sent them (raw). */
export function MinifiedFramesToggle({ pressed, onChange }: { pressed: boolean; onChange: (pressed: boolean) => void }) {
  const option = (label: string, minified: boolean) => (
    <button
      type="button"
      aria-pressed={pressed === minified}
      onClick={() => onChange(minified)}
      className={cn(
        'h-7 px-2.5 text-xs font-medium first:rounded-l-md last:rounded-r-md',
        pressed === minified ? 'bg-accent text-accent-foreground' : 'text-muted-foreground hover:bg-surface-muted hover:text-foreground',
      )}
    >
      {label}
    </button>
  )
  return (
    <div role="group" aria-label="Stack frames" className="inline-flex rounded-md border border-border bg-surface">
      {option('Original', false)}
      {option('Minified', true)}
    </div>
  )
}
