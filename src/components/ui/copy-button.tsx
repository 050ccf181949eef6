import { Check, Copy } from 'lucide-react'
import { useEffect, useState } from 'react'
import { Button, type ButtonProps } from './button.tsx'

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text)
    return true
  } catch {
    // No clipboard API (plain http on another host): fall back to a hidden textarea.
    const area = document.createElement('textarea')
    area.value = text
    area.setAttribute('readonly', '')
    area.style.position = 'fixed'
    area.style.opacity = '0'
    document.body.append(area)
    area.select()
    const ok = document.execCommand?.('copy') ?? false
    area.remove()
    return ok
  }
}

/**
 * Copies `value`; the label says what is copied ("Copy API key") and turns into "Copied".
 * `iconOnly`: the icon alone (beside an id in a table), the label its name and tooltip.
 */
export function CopyButton({ value, label, iconOnly = false, ...props }: { value: string; label: string; iconOnly?: boolean } & Omit<ButtonProps, 'onClick'>) {
  const [copied, setCopied] = useState(false)
  useEffect(() => {
    if (!copied) return
    const timer = setTimeout(() => setCopied(false), 2000)
    return () => clearTimeout(timer)
  }, [copied])

  return (
    <Button
      size={iconOnly ? 'icon-sm' : 'sm'}
      aria-label={copied ? `Copied: ${label}` : label}
      title={label}
      onClick={async () => setCopied(await copyText(value))}
      {...props}
    >
      {copied ? <Check aria-hidden="true" /> : <Copy aria-hidden="true" />}
      <span className={iconOnly ? 'sr-only' : undefined}>{copied ? 'Copied' : 'Copy'}</span>
      <span role="status" className="sr-only">
        {copied ? 'Copied to the clipboard' : ''}
      </span>
    </Button>
  )
}
