import { Keyboard } from 'lucide-react'
import { Button } from '../../components/ui/button.tsx'

/** Opens the `?` panel (shortcuts-help.tsx, loaded when it opens). */
export function ShortcutsHelpButton({ onClick }: { onClick: () => void }) {
  return (
    <Button variant="ghost" size="sm" onClick={onClick} aria-keyshortcuts="?">
      <Keyboard aria-hidden="true" />
      Keyboard shortcuts
    </Button>
  )
}
