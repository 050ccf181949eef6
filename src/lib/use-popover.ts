import { useEffect, useId, useRef, useState, type FocusEvent, type KeyboardEvent } from 'react'

/**
 * A button that opens a panel beside it (a menu, a list): open state, the panel's id, and the
 * behaviour every such panel shares. Escape closes it and gives the focus back to the button; a
 * click outside, or the focus leaving (tabbing past its last item), closes it too. Spread
 * `rootProps` on the element holding both, and give `buttonRef` to the button.
 */
export function usePopover() {
  const [open, setOpen] = useState(false)
  const id = useId()
  const root = useRef<HTMLDivElement>(null)
  const buttonRef = useRef<HTMLButtonElement>(null)

  useEffect(() => {
    if (!open) return
    const closeOutside = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false)
    }
    document.addEventListener('pointerdown', closeOutside)
    return () => document.removeEventListener('pointerdown', closeOutside)
  }, [open])

  const rootProps = {
    ref: root,
    onKeyDown: (event: KeyboardEvent<HTMLDivElement>) => {
      if (event.key !== 'Escape' || !open) return
      event.stopPropagation()
      setOpen(false)
      buttonRef.current?.focus()
    },
    onBlur: (event: FocusEvent<HTMLDivElement>) => {
      if (open && event.relatedTarget instanceof Node && !event.currentTarget.contains(event.relatedTarget)) setOpen(false)
    },
  }
  return { open, setOpen, id, buttonRef, rootProps }
}
