import { ChevronsUpDown } from 'lucide-react'
import { Button } from '../../components/ui/button.tsx'
import { lazyComponent } from '../../lib/lazy-component.tsx'
import { usePopover } from '../../lib/use-popover.ts'

// The panel's code (search, the list by organization) is fetched when the button is hovered or
// focused, before the click that opens it; it renders as soon as it is there.
const switcherPanel = lazyComponent(() => import('./project-switcher-panel.tsx').then((module) => module.SwitcherPanel))

/**
 * The header's project switcher: a button that opens a searchable list of every project, by
 * organization. Arrow keys move through it, Enter opens a project, Escape closes it and gives
 * the focus back to the button; a click outside or moving the focus away closes it too.
 */
export function ProjectSwitcher({ currentProjectId }: { currentProjectId: string | undefined }) {
  const { open, setOpen, id, buttonRef, rootProps } = usePopover()

  return (
    <div {...rootProps} className="relative">
      <Button
        ref={buttonRef}
        variant="ghost"
        size="sm"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        aria-haspopup="dialog"
        title="Switch project"
        onPointerEnter={switcherPanel.preload}
        onFocus={switcherPanel.preload}
        onClick={() => setOpen((value) => !value)}
      >
        <ChevronsUpDown aria-hidden="true" />
        {/* Between phone and laptop widths the breadcrumbs share the row: the word gives them its room. */}
        <span className="sm:max-lg:sr-only">Projects</span>
      </Button>
      {open ? <switcherPanel.Component id={id} currentProjectId={currentProjectId} onClose={() => setOpen(false)} /> : null}
    </div>
  )
}
