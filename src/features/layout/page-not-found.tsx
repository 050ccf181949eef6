import { Link, useLocation } from '@tanstack/react-router'
import { buttonVariants } from '../../components/ui/button.tsx'
import { NotFoundState } from '../../components/ui/states.tsx'
import { readToken } from '../../lib/token-store.ts'
import { AppShell } from './app-shell.tsx'
import { PublicShell } from './public-shell.tsx'

/** Any unknown address: inside the app's header when signed in (so the way on is where it always is). */
export function PageNotFound() {
  const location = useLocation()
  const page = (
    <NotFoundState
      title="Page not found"
      action={
        <Link to="/" className={buttonVariants()}>
          Go to Errata
        </Link>
      }
    >
      There is no page at <code className="font-mono break-all">{location.pathname}</code>.
    </NotFoundState>
  )
  return readToken() ? <AppShell>{page}</AppShell> : <PublicShell>{page}</PublicShell>
}
