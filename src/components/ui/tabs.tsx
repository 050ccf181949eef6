import { useId, useRef } from 'react'
import type * as React from 'react'
import { cn } from '../../lib/cn.ts'

/**
 * Controlled tabs (the selected tab usually lives in the URL). Arrow keys, Home and End move
 * between tabs as the WAI-ARIA tabs pattern describes.
 */
export function Tabs({
  label,
  tabs,
  selected,
  onSelect,
  children,
  listClassName,
  dense = false,
  listEnd,
}: {
  label: string
  tabs: readonly string[]
  selected: string
  onSelect: (tab: string) => void
  children: (tab: string) => React.ReactNode
  /** For the tab row, e.g. `flex-wrap` where scrolling would hide tabs (a narrow side panel). */
  listClassName?: string
  /** No gap between the tabs (many tabs in a narrow panel). */
  dense?: boolean
  /** Drawn after the tab row, outside the tablist: e.g. a button that shows more tabs. */
  listEnd?: React.ReactNode
}) {
  const baseId = useId()
  const listRef = useRef<HTMLDivElement>(null)
  const index = Math.max(0, tabs.indexOf(selected))
  const current = tabs[index] ?? ''
  const idOf = (i: number) => `${baseId}-tab-${i}`

  const move = (next: number) => {
    const target = tabs[(next + tabs.length) % tabs.length]
    if (target === undefined) return
    onSelect(target)
    listRef.current?.querySelectorAll<HTMLElement>('[role="tab"]')[(next + tabs.length) % tabs.length]?.focus()
  }

  const tablist = (
    <div
      ref={listRef}
      role="tablist"
      aria-label={label}
      className={cn('flex overflow-x-auto border-b border-border', dense ? 'gap-0' : 'gap-1', listClassName)}
      onKeyDown={(event) => {
        const keys: Record<string, number> = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 }
        const next = keys[event.key]
        if (next === undefined) return
        event.preventDefault()
        move(next)
      }}
    >
      {tabs.map((tab, i) => (
        <button
          key={tab}
          id={idOf(i)}
          type="button"
          role="tab"
          aria-selected={i === index}
          aria-controls={`${baseId}-panel`}
          tabIndex={i === index ? 0 : -1}
          onClick={() => onSelect(tab)}
          // Tab names may come from event data (metadata sections of up to 1,024 characters): a long
          // one is cut with an ellipsis, whole on hover and in its accessible name.
          title={tab}
          className={cn(
            '-mb-px max-w-64 shrink-0 truncate border-b-2 px-3 py-1.5 text-sm whitespace-nowrap',
            i === index
              ? 'border-accent font-medium text-foreground'
              : 'border-transparent text-muted-foreground hover:text-foreground',
          )}
        >
          {tab}
        </button>
      ))}
    </div>
  )

  return (
    <div>
      {listEnd === undefined ? (
        tablist
      ) : (
        <div className="flex flex-wrap items-end gap-x-2 gap-y-1">
          <div className="min-w-0 flex-1">{tablist}</div>
          {listEnd}
        </div>
      )}
      <div id={`${baseId}-panel`} role="tabpanel" aria-labelledby={idOf(index)} tabIndex={0} className="pt-3">
        {children(current)}
      </div>
    </div>
  )
}
