import { CopyButton } from '../../components/ui/copy-button.tsx'
import { cn } from '../../lib/cn.ts'

/**
 * A project's notifier API key, readable and one click from the clipboard. In lists it is cut to
 * its row; `wrap` shows the whole key on narrow screens too (a key just made, to write down): the
 * copy button moves under it first, and only a key wider than the line breaks.
 */
export function ApiKeyField({
  apiKey,
  projectName,
  wrap = false,
  className,
}: {
  apiKey: string
  projectName: string
  wrap?: boolean
  className?: string
}) {
  return (
    <span className={cn('inline-flex max-w-full items-center gap-2', wrap && 'flex-wrap', className)}>
      <code
        className={cn('min-w-0 rounded bg-surface-muted px-1.5 py-0.5 font-mono text-xs', wrap ? 'max-w-full break-all' : 'truncate')}
        title={apiKey}
        aria-label={`API key of ${projectName}`}
      >
        {apiKey}
      </code>
      <CopyButton value={apiKey} label={`Copy API key of ${projectName}`} />
    </span>
  )
}
