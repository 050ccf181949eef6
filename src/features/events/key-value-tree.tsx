import { ChevronDown, ChevronRight } from 'lucide-react'
import { useState } from 'react'
import { TruncatedText } from '../../components/ui/truncated-text.tsx'
import { cn } from '../../lib/cn.ts'

type Container = Record<string, unknown> | unknown[]

/**
 * Entries drawn at first, and drawn more per "Show more": an accepted payload may hold an object
 * of 100 000 keys, and drawing every one makes the page take seconds to open.
 */
export const ENTRIES_PER_PAGE = 100

const isContainer = (value: unknown): value is Container => typeof value === 'object' && value !== null

const sizeOf = (value: Container): number => (Array.isArray(value) ? value.length : Object.keys(value).length)

/** The first `limit` entries, without building the rest. */
function entriesOf(value: Container, limit: number): [string, unknown][] {
  if (Array.isArray(value)) return value.slice(0, limit).map((item, index) => [String(index), item])
  return Object.keys(value)
    .slice(0, limit)
    .map((key) => [key, value[key]])
}

function summary(value: Container): string {
  const size = sizeOf(value)
  return Array.isArray(value) ? `[${size} ${size === 1 ? 'item' : 'items'}]` : `{${size} ${size === 1 ? 'key' : 'keys'}}`
}

/**
 * A leaf value, always as text, its type visible as in a JSON viewer: strings quoted (wrapped,
 * long ones truncated), numbers and booleans in monospace and their own colour, null muted —
 * so the string "11" and the number 11 do not look alike.
 */
function Leaf({ value }: { value: unknown }) {
  if (typeof value === 'string') {
    return (
      <span data-type="string">
        <span className="text-muted-foreground">&quot;</span>
        <TruncatedText text={value} />
        <span className="text-muted-foreground">&quot;</span>
        {value === '' ? <span className="ml-1 text-muted-foreground italic">(empty string)</span> : null}
      </span>
    )
  }
  if (value === null || value === undefined) {
    return (
      <span data-type="null" className="font-mono text-muted-foreground italic">
        null
      </span>
    )
  }
  if (typeof value === 'number') {
    return (
      <span data-type="number" className="font-mono text-info tabular-nums">
        {String(value)}
      </span>
    )
  }
  if (typeof value === 'boolean') {
    return (
      <span data-type="boolean" className="font-mono text-accent">
        {String(value)}
      </span>
    )
  }
  return <TruncatedText text={JSON.stringify(value) ?? String(value)} />
}

function Entry({ name, value, depth }: { name: string; value: unknown; depth: number }) {
  // The first level of nesting opens by default; deeper levels wait for a click.
  const [open, setOpen] = useState(depth < 1)
  if (isContainer(value)) {
    const empty = sizeOf(value) === 0
    return (
      <li>
        <button
          type="button"
          aria-expanded={empty ? undefined : open}
          disabled={empty}
          onClick={() => setOpen((o) => !o)}
          className="flex items-center gap-1 rounded py-0.5 text-left font-mono text-xs disabled:opacity-100"
        >
          {empty ? (
            <span className="size-3.5" aria-hidden="true" />
          ) : open ? (
            <ChevronDown aria-hidden="true" className="size-3.5 shrink-0" />
          ) : (
            <ChevronRight aria-hidden="true" className="size-3.5 shrink-0" />
          )}
          <span className="font-medium [overflow-wrap:anywhere]">{name}</span>
          <span className="text-muted-foreground">{summary(value)}</span>
        </button>
        {open && !empty ? <TreeLevel value={value} depth={depth + 1} /> : null}
      </li>
    )
  }
  return (
    // Key beside value, or above it where the level is narrow (deep in the tree, or on a phone).
    <li className="grid grid-cols-[minmax(6rem,12rem)_minmax(0,1fr)] gap-x-3 py-0.5 pl-[1.125rem] text-xs @max-sm:grid-cols-1">
      <span className="font-mono font-medium text-muted-foreground [overflow-wrap:anywhere]">{name}</span>
      <span className="min-w-0">
        <Leaf value={value} />
      </span>
    </li>
  )
}

function TreeLevel({ value, depth, label }: { value: Container; depth: number; label?: string }) {
  const [limit, setLimit] = useState(ENTRIES_PER_PAGE)
  const size = sizeOf(value)
  const hidden = size - Math.min(limit, size)
  const next = Math.min(hidden, ENTRIES_PER_PAGE)
  const noun = Array.isArray(value) ? 'items' : 'keys'
  return (
    // Each level is at least 16rem wide: deep levels widen the tree (which then scrolls sideways)
    // instead of squeezing keys and values to a letter per line.
    <div className={cn('@container', depth > 0 && 'ml-1.5 min-w-64 border-l border-border pl-2')}>
      <ul aria-label={label} className="flex flex-col">
        {entriesOf(value, limit).map(([name, child]) => (
          <Entry key={name} name={name} value={child} depth={depth} />
        ))}
      </ul>
      {hidden > 0 ? (
        <button
          type="button"
          className="my-0.5 ml-[1.125rem] rounded text-xs font-medium text-accent hover:underline"
          onClick={() => setLimit((shown) => shown + ENTRIES_PER_PAGE)}
        >
          {next === hidden
            ? `Show ${next.toLocaleString('en')} more ${noun}`
            : `Show ${next.toLocaleString('en')} more of ${hidden.toLocaleString('en')} ${noun}`}
        </button>
      ) : null}
    </div>
  )
}

/** Untrusted nested data as a collapsible key/value tree; every value is rendered as text. */
export function KeyValueTree({ value, label, emptyText = 'Nothing here.' }: { value: unknown; label: string; emptyText?: string }) {
  if (!isContainer(value)) return <Leaf value={value} />
  if (sizeOf(value) === 0) return <p className="text-sm text-muted-foreground">{emptyText}</p>
  return (
    <div className="overflow-x-auto">
      <TreeLevel value={value} depth={0} label={label} />
    </div>
  )
}
