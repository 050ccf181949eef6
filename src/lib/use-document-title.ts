import { useEffect } from 'react'

/** Names the browser tab (and history entries) after the page: "CheckoutError · Errata". */
export function useDocumentTitle(title: string | null | undefined): void {
  useEffect(() => {
    if (!title) return
    document.title = `${title.length > 80 ? `${title.slice(0, 80)}…` : title} · Errata`
  }, [title])
}
