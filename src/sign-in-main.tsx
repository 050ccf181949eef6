// The sign-in entry (login.html): the sign-in page without the app's router, data layer or
// validation library, so the first page of a signed-out user stays small. Once signed in, the
// browser loads the app at the page the user came for (index.html).
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { destinationAfterSignIn, safeRedirect } from './features/auth/sign-in.ts'
import { SignInPage } from './features/auth/sign-in-page.tsx'
import './sign-in.css'
import { readToken } from './lib/token-store.ts'

const redirect = new URLSearchParams(window.location.search).get('redirect')

if (readToken()) {
  // Already signed in: on to the page asked for, as the app's /login route does.
  window.location.replace(safeRedirect(redirect))
} else {
  const root = document.getElementById('root')
  if (!root) throw new Error('login.html has no #root element')
  createRoot(root).render(
    <StrictMode>
      <SignInPage onSignedIn={async (response) => window.location.assign(await destinationAfterSignIn(redirect, response))} />
    </StrictMode>,
  )
}
