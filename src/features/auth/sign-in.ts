// Signing in, as the sign-in page does it. Deliberately free of the app's data layer (zod, TanStack
// Query, the router): the sign-in page is a small entry of its own (login.html, src/sign-in-main.tsx)
// so that the first page a user sees loads React and a form, not the dashboard. The signed-in app's
// /login route renders the same page (after a sign-out, without reloading).
import type { LoginRequest, LoginResponse } from '../../../contract/users.ts'
import { forgetLastProject, readLastProject } from '../../lib/last-project.ts'
import { SERVER_UNREACHABLE_MESSAGE } from '../../lib/route-chunks.ts'
import { writeToken } from '../../lib/token-store.ts'

export const ORGANIZATION_PICKER = '/organizations'

/** A refused sign-in: the HTTP status (0: the server could not be reached) and what to say. */
export class SignInError extends Error {
  readonly status: number
  readonly messages: string[]

  constructor(status: number, messages: string[]) {
    super(messages.join('; '))
    this.name = 'SignInError'
    this.status = status
    this.messages = messages
  }
}

const HEADERS = { Accept: 'application/json', 'X-Version': '2' }

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null

/** The `{"errors": [...]}` of a failed answer, or its status line when the body is not that (a proxy's page). */
async function errorMessages(response: Response): Promise<string[]> {
  try {
    const body: unknown = await response.json()
    const errors = isRecord(body) ? body.errors : undefined
    if (Array.isArray(errors) && errors.length > 0 && errors.every((e) => typeof e === 'string')) return errors
  } catch {
    // Not JSON: the status line says what happened.
  }
  return [`${response.status} ${response.statusText || 'request failed'}`.trim()]
}

/**
 * POST /api/auth/login and keep the token for every later request. A 401 is a wrong email or
 * password (the page says so in its own words); other refusals carry the server's messages. The
 * answer is checked for what the page uses (the token and the user's id) by hand, not with the
 * contract's zod schema: zod alone would be most of this page's code.
 */
export async function signIn(input: LoginRequest): Promise<LoginResponse> {
  let response: Response
  try {
    response = await fetch('/api/auth/login', {
      method: 'POST',
      headers: { ...HEADERS, 'Content-Type': 'application/json' },
      body: JSON.stringify(input),
    })
  } catch {
    throw new SignInError(0, [SERVER_UNREACHABLE_MESSAGE])
  }
  if (response.status === 401) throw new SignInError(401, ['Wrong email or password.'])
  if (!response.ok) throw new SignInError(response.status, await errorMessages(response))
  const body: unknown = await response.json().catch(() => undefined)
  if (!isRecord(body) || typeof body.token !== 'string' || !isRecord(body.user) || typeof body.user.id !== 'string') {
    throw new SignInError(502, ['Unexpected response from /api/auth/login: no token and user'])
  }
  writeToken(body.token)
  return body as unknown as LoginResponse
}

/**
 * Where a sign-in without a page to return to lands: the project this user last opened in this
 * browser, when it still exists and they can still see it; otherwise the organization picker.
 * A project gone (404) is forgotten; a server that cannot answer now leaves it remembered.
 */
export async function landingAfterSignIn(user: { id: string }, token: string): Promise<string> {
  const projectId = readLastProject(user.id)
  if (!projectId) return ORGANIZATION_PICKER
  const path = `/projects/${encodeURIComponent(projectId)}`
  try {
    const response = await fetch(`/api${path}`, { headers: { ...HEADERS, Authorization: `token ${token}` } })
    if (response.ok) return `${path}/errors`
    if (response.status === 404) forgetLastProject(user.id)
  } catch {
    // Unreachable now: the project stays remembered for the next sign-in.
  }
  return ORGANIZATION_PICKER
}

/**
 * Only same-site paths, so a crafted ?redirect= cannot send a user elsewhere. Browsers drop tabs
 * and newlines from URLs ("/\t/example.com" is "//example.com"), so any whitespace or control
 * character is refused, and what is left must resolve to this origin.
 */
export function safeRedirect(value: string | undefined | null): string {
  const fallback = ORGANIZATION_PICKER
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return fallback
  const hidden = [...value].some((char) => /\s/.test(char) || char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f)
  if (hidden) return fallback
  try {
    return new URL(value, window.location.origin).origin === window.location.origin ? value : fallback
  } catch {
    return fallback
  }
}

/** Where a sign-in goes: the page the user came for (when it is on this site), else their landing. */
export async function destinationAfterSignIn(redirect: string | undefined | null, response: LoginResponse): Promise<string> {
  return redirect ? safeRedirect(redirect) : landingAfterSignIn(response.user, response.token)
}
