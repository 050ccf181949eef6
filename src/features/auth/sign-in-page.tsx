import type { LoginResponse } from '../../../contract/users.ts'
import { cardClass } from '../../components/ui/classes.ts'
import { useDocumentTitle } from '../../lib/use-document-title.ts'
import { LoginForm } from './login-form.tsx'

/**
 * The sign-in page, as the sign-in entry (src/sign-in-main.tsx, a page load of /login) and the
 * app's /login route (after signing out, or a token the server refused) both show it.
 */
export function SignInPage({ onSignedIn }: { onSignedIn: (response: LoginResponse) => void | Promise<void> }) {
  useDocumentTitle('Sign in')
  return (
    <main className="flex min-h-dvh items-center justify-center px-4 py-12">
      <div className="w-full max-w-sm">
        <div className="mb-6 flex flex-col items-center gap-2 text-center">
          <img src="/favicon.svg" alt="" className="size-10" />
          <h1 className="text-xl font-semibold">Sign in to Errata</h1>
        </div>
        <section className={cardClass}>
          <div className="px-4 py-5">
            <LoginForm onSignedIn={onSignedIn} />
          </div>
        </section>
        {/* A plain link: the sign-in entry (login.html) has no router; the app shows the page. */}
        <p className="mt-4 text-center text-sm">
          <a href="/forgot-password" className="text-muted-foreground underline-offset-4 hover:text-foreground hover:underline">
            Forgot password?
          </a>
        </p>
      </div>
    </main>
  )
}
