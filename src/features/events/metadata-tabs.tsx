import { useState } from 'react'
import { Tabs } from '../../components/ui/tabs.tsx'
import { KeyValueTree } from './key-value-tree.tsx'

/** Tabs drawn at first, and drawn more per "Show more": a notifier may send tens of thousands of sections. */
export const SECTIONS_PER_PAGE = 20

/** The event's custom metadata: one tab per section the notifier sent, each a key/value tree. */
export function MetadataTabs({
  metadata,
  selected,
  onSelect,
}: {
  metadata: Record<string, unknown>
  selected: string | undefined
  onSelect: (tab: string) => void
}) {
  const [limit, setLimit] = useState(SECTIONS_PER_PAGE)
  const sections = Object.keys(metadata)
  if (sections.length === 0) return <p className="text-sm text-muted-foreground">No metadata was sent with this event.</p>
  const current = selected !== undefined && Object.hasOwn(metadata, selected) ? selected : (sections[0] ?? '')
  const visible = sections.slice(0, limit)
  // A link to a section further down the list still shows it, at the end of the row.
  if (!visible.includes(current)) visible.push(current)
  const hidden = sections.length - visible.length
  const next = Math.min(hidden, SECTIONS_PER_PAGE * 5)
  return (
    <Tabs
      label="Metadata sections"
      tabs={visible}
      selected={current}
      onSelect={onSelect}
      listEnd={
        hidden > 0 ? (
          <button
            type="button"
            className="mb-1.5 rounded text-xs font-medium text-accent hover:underline"
            onClick={() => setLimit((shown) => shown + next)}
          >
            {next === hidden
              ? `Show ${next.toLocaleString('en')} more sections`
              : `Show ${next.toLocaleString('en')} more of ${hidden.toLocaleString('en')} sections`}
          </button>
        ) : undefined
      }
    >
      {(tab) => <KeyValueTree value={metadata[tab]} label={`Metadata: ${tab}`} emptyText="This section is empty." />}
    </Tabs>
  )
}
