import { useState } from 'react'
import { cn } from '../../lib/cn.ts'

/**
 * Untrusted text that may be huge: shows the first `maxChars` characters, wrapped, with a
 * button to see it whole. Always rendered as a text node, never as markup.
 */
export function TruncatedText({
  text,
  maxChars = 300,
  className,
}: {
  text: string
  maxChars?: number
  className?: string
}) {
  const [expanded, setExpanded] = useState(false)
  const tooLong = text.length > maxChars
  const shown = tooLong && !expanded ? `${text.slice(0, maxChars)}…` : text
  return (
    <span className={cn('break-words whitespace-pre-wrap [overflow-wrap:anywhere]', className)}>
      {shown}
      {tooLong ? (
        <button
          type="button"
          className="ml-1 rounded text-xs font-medium text-accent hover:underline"
          aria-expanded={expanded}
          onClick={() => setExpanded((value) => !value)}
        >
          {expanded ? 'Show less' : `Show all ${text.length.toLocaleString('en')} characters`}
        </button>
      ) : null}
    </span>
  )
}
