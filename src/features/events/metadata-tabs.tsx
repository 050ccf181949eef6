import { Tabs } from '../../components/ui/tabs.tsx'
import { KeyValueTree } from './key-value-tree.tsx'

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
  const sections = Object.keys(metadata)
  if (sections.length === 0) return <p className="text-sm text-muted-foreground">No metadata was sent with this event.</p>
  const current = selected !== undefined && sections.includes(selected) ? selected : (sections[0] ?? '')
  return (
    <Tabs label="Metadata sections" tabs={sections} selected={current} onSelect={onSelect}>
      {(tab) => <KeyValueTree value={metadata[tab]} label={`Metadata: ${tab}`} emptyText="This section is empty." />}
    </Tabs>
  )
}
