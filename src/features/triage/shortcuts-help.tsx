import { Dialog } from '../../components/ui/dialog.tsx'
import { SHORTCUTS, type ShortcutDefinition } from './keyboard-shortcuts.ts'

const GROUPS: ShortcutDefinition['where'][] = ['Errors list', 'Errors list and error page', 'Error page']

/** The `?` panel: every shortcut and where it works. */
export function ShortcutsHelp({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} title="Keyboard shortcuts" description="They do nothing while you type in a field.">
      <div className="flex flex-col gap-4">
        {GROUPS.map((where) => (
          <section key={where} aria-label={where}>
            <h3 className="mb-1 text-xs font-medium text-muted-foreground">{where}</h3>
            <dl className="grid grid-cols-[4.5rem_1fr] gap-x-3 gap-y-1.5 text-sm">
              {SHORTCUTS.filter((s) => s.where === where).map((shortcut) => (
                <div key={shortcut.key} className="contents">
                  <dt>
                    <kbd className="rounded border border-border bg-surface-muted px-1.5 py-0.5 font-mono text-xs">
                      {shortcut.key}
                    </kbd>
                  </dt>
                  <dd>{shortcut.description}</dd>
                </div>
              ))}
            </dl>
          </section>
        ))}
      </div>
    </Dialog>
  )
}
