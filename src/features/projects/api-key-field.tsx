import { CopyButton } from '../../components/ui/copy-button.tsx'
import { cn } from '../../lib/cn.ts'

/** A project's notifier API key, readable and one click from the clipboard. */
export function ApiKeyField({ apiKey, projectName, className }: { apiKey: string; projectName: string; className?: string }) {
  return (
    <span className={cn('inline-flex max-w-full items-center gap-2', className)}>
      <code
        className="min-w-0 truncate rounded bg-surface-muted px-1.5 py-0.5 font-mono text-xs"
        title={apiKey}
        aria-label={`API key of ${projectName}`}
      >
        {apiKey}
      </code>
      <CopyButton value={apiKey} label={`Copy API key of ${projectName}`} />
    </span>
  )
}
