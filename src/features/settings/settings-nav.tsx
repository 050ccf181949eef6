import { Link } from '@tanstack/react-router'
import { cn } from '../../lib/cn.ts'

// The same tabs as a project's pages (projects/project-nav.tsx): a bottom line the tabs paint over.
const tabBase =
  'shrink-0 whitespace-nowrap rounded-t-md border-b-2 px-3 py-1.5 text-sm font-medium hover:text-foreground focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-accent'

const PAGES = [
  { to: '/settings/notifications', label: 'Notifications' },
  { to: '/settings/tokens', label: 'Personal tokens' },
] as const

/** The signed-in user's own settings: what they are emailed about, and their API tokens. */
export function SettingsNav({ current }: { current: (typeof PAGES)[number]['to'] }) {
  return (
    <nav aria-label="Your settings" className="flex gap-1 shadow-[inset_0_-1px_0_var(--color-border)]">
      {PAGES.map((page) => (
        <Link
          key={page.to}
          to={page.to}
          className={cn(tabBase, page.to === current ? 'border-accent text-foreground' : 'border-transparent text-muted-foreground')}
          aria-current={page.to === current ? 'page' : undefined}
        >
          {page.label}
        </Link>
      ))}
    </nav>
  )
}
