import type { ComponentProps } from 'react'
import { lazyComponent } from '../../lib/lazy-component.tsx'
import type { AssignDialog as AssignDialogView } from './assign-dialog.tsx'
import type { BulkToolbar as BulkToolbarView } from './bulk-toolbar.tsx'
import type { MergeDialog as MergeDialogView } from './merge-dialog.tsx'
import type { ShortcutsHelp as ShortcutsHelpView } from './shortcuts-help.tsx'
import type { SnoozeDialog as SnoozeDialogView } from './snooze-dialog.tsx'

// The triage parts no page needs for its first screen, each a chunk of its own: the dialogs open on
// a click or a key, the bulk-action bar once errors are selected. The pages preload them when the
// browser is idle after the first paint (preloadTriageParts), so a key pressed before that still
// acts: its dialog opens as soon as the code is there. A closed dialog renders nothing, as before.
const snooze = lazyComponent(() => import('./snooze-dialog.tsx').then((module) => module.SnoozeDialog))
const assign = lazyComponent(() => import('./assign-dialog.tsx').then((module) => module.AssignDialog))
const shortcutsHelp = lazyComponent(() => import('./shortcuts-help.tsx').then((module) => module.ShortcutsHelp))
const merge = lazyComponent(() => import('./merge-dialog.tsx').then((module) => module.MergeDialog))
const bulkToolbar = lazyComponent(() => import('./bulk-toolbar.tsx').then((module) => module.BulkToolbar))

export function SnoozeDialog(props: ComponentProps<typeof SnoozeDialogView>) {
  return props.open ? <snooze.Component {...props} /> : null
}

export function AssignDialog(props: ComponentProps<typeof AssignDialogView>) {
  return props.open ? <assign.Component {...props} /> : null
}

export function MergeDialog(props: ComponentProps<typeof MergeDialogView>) {
  return props.open ? <merge.Component {...props} /> : null
}

export function ShortcutsHelp(props: ComponentProps<typeof ShortcutsHelpView>) {
  return props.open ? <shortcutsHelp.Component {...props} /> : null
}

/** The bar keeps its height while its code arrives (the list's bar is at least 2.5rem high). */
export function BulkToolbar(props: ComponentProps<typeof BulkToolbarView>) {
  return <bulkToolbar.Component {...props} fallback={<span className="min-w-0 flex-1" />} />
}

/** Fetches the dialogs' code (and on the list the bulk bar's); call when the page has painted. */
export function preloadTriageParts({ bulk }: { bulk: boolean }): void {
  snooze.preload()
  shortcutsHelp.preload()
  if (bulk) {
    assign.preload()
    merge.preload()
    bulkToolbar.preload()
  }
}
