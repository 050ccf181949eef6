// The errors list painted by the page from the first request's answer, before the app's code has
// run: the project's tabs and title, the list's first rows (error-rows.ts), and placeholders where
// the app's controls come, in the app's classes and at the places the app's page puts them (on the
// default view with the trend folded: first-requests.ts decides). The app's first render takes the
// whole shell's place (src/lib/first-paint.ts). A failed or refused request, an empty list or
// anything unexpected in an answer leaves the shell as it was: the app then shows what it shows.
import type { ErrorGroup } from '../../contract/errors.ts'
import { errorRowsElement } from './error-rows.ts'

/** index.html's shell: the whole of it, and the part under the header that the errors page replaces. */
export const SHELL_ID = 'first-paint'
const SHELL_PAGE_ID = 'first-paint-page'

const pulse = (className: string) => {
  const bar = document.createElement('div')
  bar.className = `animate-pulse rounded bg-surface-muted ${className}`
  return bar
}

/** The project's tabs as the app shows them (features/projects/project-nav.tsx); on phones the last ones are under "More". */
const TAB = 'shrink-0 whitespace-nowrap -mb-px rounded-t-md border-b-2 px-3 py-1.5 text-sm font-medium text-muted-foreground'
const TABS: [string, string, boolean][] = [
  ['errors', 'Errors', true],
  ['releases', 'Releases', true],
  ['stability', 'Stability', true],
  ['source-maps', 'Source maps & symbols', false],
  ['webhooks', 'Webhooks', false],
]

function projectTabs(projectId: string): HTMLElement {
  const nav = document.createElement('nav')
  nav.setAttribute('aria-label', 'Project')
  nav.className = 'mb-3 flex gap-1 border-b border-border'
  for (const [path, label, primary] of TABS) {
    const link = document.createElement('a')
    link.href = `/projects/${encodeURIComponent(projectId)}/${path}`
    link.textContent = label
    link.className = `${TAB} ${path === 'errors' ? 'border-accent text-foreground' : 'border-transparent'}${primary ? '' : ' max-sm:hidden'}`
    if (path === 'errors') link.setAttribute('aria-current', 'page')
    nav.append(link)
  }
  return nav
}

/**
 * The page under the header: the tabs, then the title and the filter bar's place, then the list
 * with its toolbar's place and the rows. The heights of the places are the app's page at each
 * width range (its title's controls and its filter bar wrap differently there); at 1280 and 390
 * px wide the rows sit where the app's do (e2e/first-paint.spec.ts).
 */
export function errorsPage(projectId: string, projectName: string, errors: readonly ErrorGroup[], now: number): HTMLElement {
  const page = document.createElement('div')
  page.id = SHELL_PAGE_ID
  page.className = 'mx-auto w-full max-w-7xl px-4 py-6'
  const top = document.createElement('div')
  top.className = 'flex h-[272px] flex-col justify-between sm:h-[198px] md:h-[126px] lg:h-[86px]'
  const title = document.createElement('h1')
  title.className = 'text-xl font-semibold tracking-tight [overflow-wrap:anywhere] lg:mt-0.5'
  title.textContent = `${projectName}: errors`
  top.append(title, pulse('h-[148px] rounded-md sm:h-[74px] md:h-[42px]'))

  const list = document.createElement('div')
  list.className = 'mt-3 overflow-clip rounded-lg border border-border bg-surface'
  const toolbar = document.createElement('div')
  toolbar.className = 'flex h-[67px] items-center border-b border-border px-4 sm:h-[75px] md:h-[70px] lg:h-[78px]'
  toolbar.append(pulse('h-5 w-64 max-w-full'))
  list.append(toolbar, errorRowsElement(errors, projectId, now))
  page.append(projectTabs(projectId), top, list)
  return page
}

const readJson = (answer: Promise<Response>): Promise<unknown> =>
  // Read from a copy, taken as the answer arrives (before the app may read the answer itself).
  answer.then((response) => (response.ok ? response.clone().json() : null)).catch(() => null)

const isErrorList = (value: unknown): value is ErrorGroup[] =>
  Array.isArray(value) &&
  value.every((item) => typeof item === 'object' && item !== null && typeof (item as ErrorGroup).id === 'string')

/**
 * The shell's page part, once the parser has reached it. Not DOMContentLoaded: that waits for
 * the app's module scripts to have run, which is what the rows are painted ahead of.
 */
function shellPage(): Promise<HTMLElement | null> {
  const found = document.getElementById(SHELL_PAGE_ID)
  if (found || document.readyState !== 'loading') return Promise.resolve(found)
  return new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      const element = document.getElementById(SHELL_PAGE_ID)
      if (element) {
        observer.disconnect()
        resolve(element)
      }
    })
    observer.observe(document.documentElement, { childList: true, subtree: true })
    document.addEventListener(
      'DOMContentLoaded',
      () => {
        observer.disconnect()
        resolve(document.getElementById(SHELL_PAGE_ID))
      },
      { once: true },
    )
  })
}

/** Paints the errors page into the shell when both answers are in, unless the app got there first. */
export function paintErrorsShell(projectId: string, project: Promise<Response>, errors: Promise<Response>): void {
  const answers = Promise.all([readJson(project), readJson(errors)])
  void answers.then(async ([projectAnswer, errorsAnswer]) => {
    await shellPage()
    // Looked up again: the app may have taken the shell away meanwhile.
    const shell = document.getElementById(SHELL_PAGE_ID)
    const name = (projectAnswer as { name?: unknown } | null)?.name
    if (!shell || typeof name !== 'string' || !isErrorList(errorsAnswer) || errorsAnswer.length === 0) return
    try {
      shell.replaceWith(errorsPage(projectId, name, errorsAnswer, Date.now()))
    } catch {
      // Something in the answer the rows could not show: the plain shell stays until the app runs.
    }
  })
}
