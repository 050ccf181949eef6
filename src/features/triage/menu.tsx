import { useEffect, useId, useRef, useState, type ReactNode } from 'react'
import { Button, type ButtonProps } from '../../components/ui/button.tsx'
import { cn } from '../../lib/cn.ts'

export interface MenuItem {
  id: string
  label: ReactNode
  /** Present for a choice among options (menuitemradio); absent for a plain action. */
  checked?: boolean
  disabled?: boolean
  onSelect: () => void
}

/**
 * A button that opens a menu (WAI-ARIA menu button): arrows move, Enter/Space choose, Escape
 * closes and gives focus back to the button. Open state may be controlled so a keyboard shortcut
 * can open it.
 */
export function MenuButton({
  children,
  menuLabel,
  items,
  open: openProp,
  onOpenChange,
  emptyText = 'Nothing to choose',
  align = 'start',
  buttonProps,
}: {
  children: ReactNode
  menuLabel: string
  items: MenuItem[]
  open?: boolean
  onOpenChange?: (open: boolean) => void
  emptyText?: string
  align?: 'start' | 'end'
  buttonProps?: Omit<ButtonProps, 'onClick' | 'children'>
}) {
  const [openState, setOpenState] = useState(false)
  const open = openProp ?? openState
  const setOpen = (next: boolean) => {
    setOpenState(next)
    onOpenChange?.(next)
  }
  const menuId = useId()
  const wrapperRef = useRef<HTMLDivElement>(null)
  const triggerRef = useRef<HTMLButtonElement>(null)
  const menuRef = useRef<HTMLDivElement>(null)
  const setOpenRef = useRef(setOpen)
  useEffect(() => {
    setOpenRef.current = setOpen
  })

  useEffect(() => {
    if (!open) return
    const menu = menuRef.current
    const enabled = [...(menu?.querySelectorAll<HTMLElement>('[role^="menuitem"]:not([aria-disabled="true"])') ?? [])]
    const checked = enabled.find((item) => item.getAttribute('aria-checked') === 'true')
    ;(checked ?? enabled[0] ?? menu)?.focus()
    const onPointerDown = (event: PointerEvent | MouseEvent) => {
      if (event.target instanceof Node && !wrapperRef.current?.contains(event.target)) setOpenRef.current(false)
    }
    document.addEventListener('mousedown', onPointerDown)
    return () => document.removeEventListener('mousedown', onPointerDown)
  }, [open])

  const close = (returnFocus: boolean) => {
    setOpen(false)
    if (returnFocus) triggerRef.current?.focus()
  }

  const onMenuKeyDown = (event: React.KeyboardEvent<HTMLDivElement>) => {
    const elements = [...event.currentTarget.querySelectorAll<HTMLElement>('[role^="menuitem"]:not([aria-disabled="true"])')]
    const index = elements.indexOf(document.activeElement as HTMLElement)
    const moveTo = (next: number) => {
      event.preventDefault()
      elements[(next + elements.length) % elements.length]?.focus()
    }
    switch (event.key) {
      case 'ArrowDown':
        return moveTo(index + 1)
      case 'ArrowUp':
        return moveTo(index - 1)
      case 'Home':
        return moveTo(0)
      case 'End':
        return moveTo(elements.length - 1)
      case 'Escape':
        event.preventDefault()
        event.stopPropagation()
        return close(true)
      case 'Tab':
        return close(false)
    }
  }

  return (
    <div ref={wrapperRef} className="relative inline-block">
      <Button
        {...buttonProps}
        ref={triggerRef}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => setOpen(!open)}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown' && !open) {
            event.preventDefault()
            setOpen(true)
          }
        }}
      >
        {children}
      </Button>
      {open ? (
        <div
          ref={menuRef}
          id={menuId}
          role="menu"
          aria-label={menuLabel}
          tabIndex={-1}
          onKeyDown={onMenuKeyDown}
          className={cn(
            'absolute z-40 mt-1 flex max-h-72 min-w-48 flex-col overflow-y-auto rounded-md border border-border bg-surface p-1 shadow-lg',
            align === 'end' ? 'right-0' : 'left-0',
          )}
        >
          {items.length === 0 ? (
            <div role="menuitem" aria-disabled="true" className="px-2 py-1.5 text-sm text-muted-foreground">
              {emptyText}
            </div>
          ) : null}
          {items.map((item) => (
            <button
              key={item.id}
              type="button"
              role={item.checked === undefined ? 'menuitem' : 'menuitemradio'}
              aria-checked={item.checked}
              aria-disabled={item.disabled || undefined}
              tabIndex={-1}
              className="flex items-center gap-2 rounded px-2 py-1.5 text-left text-sm hover:bg-surface-muted focus:bg-surface-muted focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-accent aria-disabled:opacity-50"
              onClick={() => {
                if (item.disabled) return
                close(true)
                item.onSelect()
              }}
            >
              {item.checked !== undefined ? (
                <span aria-hidden="true" className={cn('size-1.5 shrink-0 rounded-full', item.checked ? 'bg-accent' : 'bg-transparent')} />
              ) : null}
              <span className="min-w-0 truncate">{item.label}</span>
            </button>
          ))}
        </div>
      ) : null}
    </div>
  )
}
