import { useAnnouncement } from '../../lib/announce.ts'

/** The one live region announce() speaks through; invisible. */
export function Announcer() {
  const message = useAnnouncement()
  return (
    <p role="status" aria-live="polite" className="sr-only">
      {message}
    </p>
  )
}
