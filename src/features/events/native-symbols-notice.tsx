import { Link } from '@tanstack/react-router'
import { FileWarning } from 'lucide-react'
import type { NativeSymbolication } from '../../../contract/events.ts'
import { cn } from '../../lib/cn.ts'

/** Modules named before "and N more": a crash through many libraries lists a few. */
const MISSING_SHOWN = 3

type Missing = NativeSymbolication['missing'][number]

/** "libfoo.so (build id c4c3…)": the module's file name and the id its symbol file must carry. */
export function describeMissingModule(missing: Missing): string {
  const module = missing.module ? missing.module.slice(missing.module.lastIndexOf('/') + 1) || missing.module : 'a module'
  return `${module} (${missing.code_id ? `build id ${missing.code_id}` : `debug id ${missing.debug_id}`})`
}

/**
 * The native modules whose frames stay addresses for want of a symbol file, each with a link to
 * the upload forms. Nothing when every module's symbols were found.
 */
export function NativeSymbolsNotice({ projectId, symbolication }: { projectId: string; symbolication: NativeSymbolication | undefined }) {
  if (!symbolication || symbolication.missing.length === 0) return null
  const { missing } = symbolication
  return (
    <div className="flex gap-3 rounded-md border border-warning/40 bg-warning-soft/40 px-3 py-2 text-sm">
      <FileWarning aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-warning" />
      <div className="flex min-w-0 flex-1 flex-col gap-1">
        <p className="font-medium">
          {symbolication.status === 'partial' ? 'Some native frames are still addresses: ' : 'These native frames are addresses: '}
          upload the symbols of their libraries to read them.
        </p>
        <ul className="flex flex-col gap-1">
          {missing.slice(0, MISSING_SHOWN).map((entry) => (
            <li key={entry.debug_id} className="[overflow-wrap:anywhere]">
              Symbols missing for <span className="font-mono text-xs">{describeMissingModule(entry)}</span>
            </li>
          ))}
        </ul>
        {missing.length > MISSING_SHOWN ? <p className="text-xs text-muted-foreground">and {missing.length - MISSING_SHOWN} more libraries</p> : null}
        <Link
          to="/projects/$projectId/source-maps"
          params={{ projectId }}
          search={{ kind: 'native' }}
          className="self-start text-xs font-medium text-accent underline-offset-4 hover:underline"
        >
          Upload symbols on Source maps &amp; symbols
        </Link>
      </div>
    </div>
  )
}

/** Switches the stack traces between native frames as symbols read them and as they came (raw, with addresses). */
export function RawFramesToggle({ pressed, onChange }: { pressed: boolean; onChange: (pressed: boolean) => void }) {
  return (
    <button
      type="button"
      aria-pressed={pressed}
      onClick={() => onChange(!pressed)}
      className={cn(
        'h-7 rounded-md border px-2.5 text-xs font-medium',
        pressed ? 'border-accent bg-accent text-accent-foreground' : 'border-border bg-surface text-muted-foreground hover:bg-surface-muted hover:text-foreground',
      )}
    >
      Show raw frames
    </button>
  )
}
