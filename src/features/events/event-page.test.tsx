import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { errorGroup, event, frame, project } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const XSS = '<script>alert("pwned")</script>'

const richEvent = event({
  exceptions: [
    {
      class: 'CheckoutError',
      message: `Checkout failed for ${XSS}`,
      type: 'nodejs',
      stacktrace: [
        frame({ method: 'Layer.handle', file: 'node_modules/express/lib/router/layer.js', line: 95 }),
        frame({
          method: 'submitOrder',
          file: 'src/checkout.ts',
          line: 42,
          column: 11,
          in_project: true,
          code: { '41': 'const cart = await loadCart(id)', '42': 'return cart.total.amount', '43': '}' },
        }),
        frame({ method: 'next', file: 'node_modules/express/lib/router/route.js', line: 149 }),
        frame({ method: 'dispatch', file: 'node_modules/express/lib/router/route.js', line: 119 }),
      ],
    },
    { class: 'RangeError', message: 'middle cause', type: 'nodejs', stacktrace: [] },
    { class: 'TypeError', message: 'innermost cause', type: 'nodejs', stacktrace: [] },
  ],
  breadcrumbs: [
    { timestamp: '2026-11-22T09:59:58.100Z', name: 'User clicked checkout', type: 'user', meta_data: { cartItems: 3 } },
    { timestamp: '2026-11-22T09:59:59.200Z', name: 'GET /api/cart', type: 'request', meta_data: { status: 200 } },
  ],
  meta_data: {
    company: { name: 'Acme Inc.', plan: 'enterprise', billing: { country: 'NL', seats: 12 } },
    payload: { comment: XSS },
  },
  feature_flags: [{ name: 'new-checkout', variant: 'treatment' }, { name: 'dark-mode', variant: null }],
  request: { url: 'https://shop.example.com/checkout', httpMethod: 'POST' },
  app: { version: '1.2.3', releaseStage: 'production' },
  device: { hostname: 'web-1', osName: 'linux' },
})

function routes() {
  return {
    'GET /api/projects/p1': project(),
    'GET /api/projects/p1/errors/e1': errorGroup(),
    'GET /api/projects/p1/events/ev1': richEvent,
    // The neighbours: the first event after ev1 each way.
    'GET /api/projects/p1/errors/e1/events': (request: { url: URL }) =>
      request.url.searchParams.get('direction') === 'asc'
        ? json([event({ id: 'ev-newer', received_at: '2026-11-22T11:00:00.000Z' })])
        : json([event({ id: 'ev-older', received_at: '2026-11-22T09:00:00.000Z' })]),
  }
}

describe('event detail page', () => {
  it('shows the exceptions outermost first, each cause after the one it caused', async () => {
    mockApi(routes())
    renderApp('/projects/p1/errors/e1/events/ev1')
    const chain = await screen.findByRole('list', { name: 'Exceptions, outermost first' })
    // The tab is named after the page.
    expect(document.title).toBe('Event of CheckoutError · Errata')
    const exceptions = within(chain).getAllByRole('listitem', { name: /^(Exception|Caused by):/ })
    expect(exceptions.map((item) => item.getAttribute('aria-label'))).toEqual([
      'Exception: CheckoutError',
      'Caused by: RangeError',
      'Caused by: TypeError',
    ])
    expect(within(exceptions[1]!).getByText('middle cause')).toBeInTheDocument()
  })

  it('shows why the severity was chosen, with the notifier\'s details', async () => {
    mockApi({
      ...routes(),
      'GET /api/projects/p1/events/ev1': event({
        unhandled: true,
        severity_reason: 'unhandledErrorMiddleware',
        severity_reason_attributes: { framework: 'Express' },
      }),
    })
    renderApp('/projects/p1/errors/e1/events/ev1')
    expect(await screen.findByText('unhandledErrorMiddleware (framework: Express)')).toBeInTheDocument()
  })

  it('names the OS beside its version in the summary', async () => {
    mockApi({ ...routes(), 'GET /api/projects/p1/events/ev1': event({ os_version: '14.4', device: { osName: 'iOS', model: 'iPhone13,2' } }) })
    renderApp('/projects/p1/errors/e1/events/ev1')
    const os = await screen.findByText('OS', { selector: 'dt' })
    expect(os.nextElementSibling).toHaveTextContent(/^iOS 14\.4$/)
  })

  it('gives every summary cell its whole value on hover, the user by full name', async () => {
    const name = 'Augusta Ada King, Countess of Lovelace, née Byron, of Ockham Park'
    const stage = `production-${'eu-west-'.repeat(10)}`
    mockApi({
      ...routes(),
      'GET /api/projects/p1/events/ev1': event({ release_stage: stage, user: { id: 'u1', email: 'ada@example.com', name } }),
    })
    renderApp('/projects/p1/errors/e1/events/ev1')
    const cell = async (label: string) => (await screen.findByText(label, { selector: 'dt' })).nextElementSibling
    expect(await cell('User')).toHaveTextContent(name)
    expect(await cell('User')).toHaveAttribute('title', `${name} (ada@example.com)`)
    expect(await cell('Release stage')).toHaveAttribute('title', stage)
  })

  it('names an exception sent without a class name instead of leaving its heading empty', async () => {
    mockApi({
      ...routes(),
      'GET /api/projects/p1/errors/e1': errorGroup({ error_class: '' }),
      'GET /api/projects/p1/events/ev1': event({
        exceptions: [
          { class: 'RuntimeError', message: 'outer', type: 'ruby', stacktrace: [] },
          { class: '', message: 'from an anonymous class', type: 'ruby', stacktrace: [] },
        ],
      }),
    })
    renderApp('/projects/p1/errors/e1/events/ev1')
    const chain = await screen.findByRole('list', { name: 'Exceptions, outermost first' })
    expect(within(chain).getByRole('listitem', { name: 'Caused by: (no class name)' })).toBeInTheDocument()
    expect(await within(screen.getByRole('navigation', { name: 'Breadcrumbs' })).findByRole('link', { name: '(no class name)' })).toBeInTheDocument()
  })

  it('shortens a very long class in the summary and the exception list, each with a button to read it whole', async () => {
    // As stored: a class longer than 32,768 characters keeps that many and the server's marker.
    const longClass = `Unbroken${'Abc'.repeat(11_000)}`.slice(0, 32_768)
    mockApi({
      ...routes(),
      'GET /api/projects/p1/errors/e1': errorGroup({ error_class: longClass.slice(0, 4096) }),
      'GET /api/projects/p1/events/ev1': event({
        exceptions: [{ class: `${longClass}…[truncated]`, message: 'outer', type: 'nodejs', stacktrace: [frame()] }],
      }),
    })
    renderApp('/projects/p1/errors/e1/events/ev1')
    const chain = await screen.findByRole('list', { name: 'Exceptions, outermost first' })
    const shortened = `${longClass.slice(0, 200)}…`
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(shortened)
    expect(within(chain).getByRole('heading', { level: 3 }).textContent).toBe(shortened)
    // Names that point at the exception stay listenable.
    expect(within(chain).getByRole('listitem', { name: `Exception: ${shortened}` })).toBeInTheDocument()
    expect(within(chain).getByRole('list', { name: `Stack frames of ${shortened}` })).toBeInTheDocument()
    const showAll = screen.getByRole('button', { name: 'Show all 32,768 stored characters of the error class' })
    await userEvent.click(showAll)
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(longClass)
    expect(within(chain).getByRole('button', { name: 'Show all 32,768 stored characters of the class of the exception' })).toBeInTheDocument()
  })

  it('emphasizes in-project frames, collapses library frames and highlights the failing code line', async () => {
    mockApi(routes())
    renderApp('/projects/p1/errors/e1/events/ev1')
    const trace = await screen.findByRole('list', { name: 'Stack frames of CheckoutError' })

    const appFrame = within(trace).getByRole('listitem', { name: /^In-project frame 2: submitOrder at src\/checkout.ts:42:11/ })
    expect(appFrame).toHaveAttribute('data-in-project', 'true')
    expect(within(appFrame).getByText('in project')).toBeInTheDocument()

    // Library frames are hidden behind toggles, one per run.
    expect(within(trace).queryByText('Layer.handle')).not.toBeInTheDocument()
    expect(within(trace).queryByText('dispatch')).not.toBeInTheDocument()
    const toggle = within(trace).getByRole('button', { name: 'Show 2 library frames, frames 3 to 4' })
    expect(toggle).toHaveAttribute('aria-expanded', 'false')
    await userEvent.click(toggle)
    expect(toggle).toHaveAttribute('aria-expanded', 'true')
    const libraryFrame = within(trace).getByRole('listitem', { name: /^Library frame 4: dispatch/ })
    expect(libraryFrame).toHaveAttribute('data-in-project', 'false')

    // The in-project frame's code is open, the failing line marked.
    const code = within(appFrame).getByLabelText('Code around src/checkout.ts:42:11')
    const failing = code.querySelector('[aria-current="true"]')
    expect(failing).toHaveTextContent('return cart.total.amount')
    expect(failing).toHaveTextContent('failing line 42')
    await userEvent.click(within(appFrame).getByRole('button', { name: /Hide code/ }))
    expect(within(appFrame).queryByLabelText('Code around src/checkout.ts:42:11')).not.toBeInTheDocument()
  })

  it('renders markup from the event as text, never as elements', async () => {
    mockApi(routes())
    const { container } = renderApp('/projects/p1/errors/e1/events/ev1')
    await screen.findByRole('list', { name: 'Exceptions, outermost first' })
    expect(screen.getAllByText(`Checkout failed for ${XSS}`).length).toBeGreaterThan(0)
    await userEvent.click(screen.getByRole('tab', { name: 'payload' }))
    expect(screen.getByText(XSS)).toBeInTheDocument()
    expect(container.querySelector('script')).toBeNull()
  })

  it('shows metadata as tabs of collapsible key/value trees, the tab in the URL', async () => {
    mockApi(routes())
    const { router } = renderApp('/projects/p1/errors/e1/events/ev1')
    const tabs = await screen.findByRole('tablist', { name: 'Metadata sections' })
    expect(within(tabs).getAllByRole('tab').map((tab) => tab.textContent)).toEqual(['company', 'payload'])
    expect(within(tabs).getByRole('tab', { name: 'company' })).toHaveAttribute('aria-selected', 'true')

    const panel = screen.getByRole('tabpanel')
    expect(within(panel).getByText('enterprise')).toBeInTheDocument()
    // Nested objects are open at the first level; deeper levels wait for a click.
    const billing = within(panel).getByRole('button', { name: /billing/ })
    expect(billing).toHaveAttribute('aria-expanded', 'true')
    expect(within(panel).getByText('NL')).toBeInTheDocument()
    await userEvent.click(billing)
    expect(within(panel).queryByText('NL')).not.toBeInTheDocument()

    await userEvent.click(within(tabs).getByRole('tab', { name: 'payload' }))
    await waitFor(() => expect(router.state.location.search).toMatchObject({ tab: 'payload' }))
    expect(within(tabs).getByRole('tab', { name: 'payload' })).toHaveAttribute('aria-selected', 'true')
  })

  it('shows breadcrumbs, feature flags and the user, request, app and device panels', async () => {
    mockApi(routes())
    renderApp('/projects/p1/errors/e1/events/ev1')
    const crumbs = await screen.findByRole('list', { name: 'Breadcrumbs, oldest first' })
    const items = within(crumbs).getAllByRole('listitem')
    expect(items[0]).toHaveTextContent('User clicked checkout')
    expect(items[0]).toHaveTextContent('cartItems: 3')
    expect(items[1]).toHaveTextContent('GET /api/cart')

    const flags = screen.getByRole('table', { name: /Feature flags/ })
    expect(within(flags).getByText('new-checkout')).toBeInTheDocument()
    expect(within(flags).getByText('treatment')).toBeInTheDocument()

    const user = screen.getByRole('region', { name: 'User' })
    expect(within(user).getByText('ada@example.com')).toBeInTheDocument()
    expect(within(user).getByText('Ada Lovelace')).toBeInTheDocument()
    expect(within(screen.getByRole('region', { name: 'Request' })).getByText('https://shop.example.com/checkout')).toBeInTheDocument()
    expect(within(screen.getByRole('region', { name: 'Device' })).getByText('web-1')).toBeInTheDocument()
  })

  it('links to the newer and older events of the same error', async () => {
    mockApi(routes())
    renderApp('/projects/p1/errors/e1/events/ev1')
    const nav = await screen.findByRole('navigation', { name: 'Event navigation' })
    expect(await within(nav).findByRole('link', { name: /Newer event/ })).toHaveAttribute(
      'href',
      '/projects/p1/errors/e1/events/ev-newer',
    )
    expect(within(nav).getByRole('link', { name: /Older event/ })).toHaveAttribute('href', '/projects/p1/errors/e1/events/ev-older')
  })

  it('keeps focus on Older event while walking through events with the keyboard', async () => {
    mockApi({
      ...routes(),
      'GET /api/projects/p1/events/ev-older': event({ id: 'ev-older', received_at: '2026-11-22T09:00:00.000Z', context: 'older page' }),
    })
    const { router } = renderApp('/projects/p1/errors/e1/events/ev1')
    const older = await within(await screen.findByRole('navigation', { name: 'Event navigation' })).findByRole('link', { name: /Older event/ })
    older.focus()
    await userEvent.keyboard('{Enter}')
    await waitFor(() => expect(router.state.location.pathname).toBe('/projects/p1/errors/e1/events/ev-older'))
    await waitFor(() => expect(document.activeElement).toHaveAccessibleName('Older event'))
  })

  it('shows a native crash by module and address, with its registers', async () => {
    const native = {
      type: 'c',
      module: '/data/app/~~Qx1==/com.example-Ab3==/lib/arm64/libcrash.so',
      frame_address: '0x7843f5b698',
      load_address: '0x7843f5a000',
      symbol_address: null,
      relative_address: '0x1698',
      is_pc: true,
      is_lr: false,
      code_identifier: 'c4c3e67882c5ae90748762b6ccaf46f60a4db16a',
      macho_uuid: null,
      macho_vm_address: null,
    }
    const crash = event({
      exceptions: [
        {
          class: 'SIGSEGV',
          message: 'Segmentation violation (invalid memory reference)',
          type: 'c',
          stacktrace: [
            frame({ method: 'crash_here', file: native.module, line: 5784, native }),
            frame({ method: null, file: native.module, line: 5816, native: { ...native, relative_address: '0x16b8', is_pc: false } }),
          ],
          registers: [{ frame_index: 0, values: [{ name: 'pc', value: '0x7843f5b698' }, { name: 'sp', value: '0x7fe0c1a2b0' }] }],
        },
      ],
    })
    mockApi({ ...routes(), 'GET /api/projects/p1/events/ev1': crash })
    renderApp('/projects/p1/errors/e1/events/ev1')
    const trace = await screen.findByRole('list', { name: 'Stack frames of SIGSEGV' })
    // The module's name and the address inside it, not the install path and the NDK's "line" (that address in decimal).
    const top = within(trace).getByRole('listitem', { name: 'Library frame 1: crash_here at libcrash.so + 0x1698' })
    expect(within(top).getByText('program counter')).toBeInTheDocument()
    expect(within(top).getByText('libcrash.so + 0x1698')).toHaveAttribute('title', expect.stringContaining('build id c4c3e67882c5ae90748762b6ccaf46f60a4db16a'))
    expect(within(trace).getByRole('listitem', { name: 'Library frame 2: (unknown function) at libcrash.so + 0x16b8' })).toBeInTheDocument()

    await userEvent.click(screen.getByText('Registers (2)'))
    const registers = screen.getByRole('table', { name: 'Frame 1' })
    expect(within(registers).getByRole('row', { name: 'pc 0x7843f5b698' })).toBeVisible()
  })

  it('shows the top of a deep stack and every frame on request', async () => {
    const deep = event({
      exceptions: [
        {
          class: 'RangeError',
          message: 'Maximum call stack size exceeded',
          type: 'nodejs',
          stacktrace: Array.from({ length: 1200 }, (_, i) => frame({ method: `recurse${i}`, file: 'src/tree.ts', line: i + 1 })),
        },
      ],
    })
    mockApi({ ...routes(), 'GET /api/projects/p1/events/ev1': deep })
    renderApp('/projects/p1/errors/e1/events/ev1')
    const trace = await screen.findByRole('list', { name: 'Stack frames of RangeError' })
    expect(within(trace).getAllByRole('listitem', { name: /^Library frame/ })).toHaveLength(50)
    await userEvent.click(within(trace).getByRole('button', { name: 'Show all 1,200 frames (1,150 more)' }))
    expect(within(trace).getAllByRole('listitem', { name: /^Library frame/ })).toHaveLength(1200)
    expect(within(trace).getByRole('listitem', { name: 'Library frame 1200: recurse1199 at src/tree.ts:1200:5' })).toBeInTheDocument()
  })

  it('folds a recursion to one run of its cycle, "× N", unfolded and folded again from the keyboard', async () => {
    const walk = frame({ method: 'walk', file: 'src/tree.ts', line: 12, column: 5, in_project: true })
    const visit = frame({ method: 'visit', file: 'src/tree.ts', line: 30, column: 9, in_project: true })
    const recursive = event({
      exceptions: [
        {
          class: 'RangeError',
          message: 'Maximum call stack size exceeded',
          type: 'nodejs',
          stacktrace: [
            frame({ method: 'validate', file: 'src/tree.ts', line: 4, column: 11, in_project: true }),
            ...Array.from({ length: 200 }, () => [walk, visit]).flat(),
            frame({ method: 'main', file: 'src/index.ts', line: 8, column: 3, in_project: true }),
          ],
        },
      ],
    })
    mockApi({ ...routes(), 'GET /api/projects/p1/events/ev1': recursive })
    renderApp('/projects/p1/errors/e1/events/ev1')
    const trace = await screen.findByRole('list', { name: 'Stack frames of RangeError' })
    const run = within(trace).getByRole('listitem', { name: 'Recursion: 2 frames repeated 200 times, frames 2 to 401' })
    expect(run).toHaveTextContent('× 200')
    expect(within(run).getAllByRole('listitem').map((row) => row.getAttribute('aria-label'))).toEqual([
      'In-project frame 2: walk at src/tree.ts:12:5',
      'In-project frame 3: visit at src/tree.ts:30:9',
    ])
    expect(within(trace).getByRole('listitem', { name: 'In-project frame 402: main at src/index.ts:8:3' })).toBeInTheDocument()
    // Folded, the whole trace fits the first screen: nothing is left behind "Show all".
    expect(within(trace).queryByRole('button', { name: /more\)$/ })).not.toBeInTheDocument()

    const unfold = within(run).getByRole('button', { name: 'Show all 400 frames of the recursion, frames 2 to 401' })
    expect(unfold).toHaveAttribute('aria-expanded', 'false')
    unfold.focus()
    await userEvent.keyboard('{Enter}')
    expect(unfold).toHaveAttribute('aria-expanded', 'true')
    expect(unfold).toHaveAccessibleName('Fold the repetitions of the recursion, frames 2 to 401')
    expect(within(run).getAllByRole('listitem')).toHaveLength(400)
    expect(within(run).getByRole('listitem', { name: 'In-project frame 401: visit at src/tree.ts:30:9' })).toBeInTheDocument()
    await userEvent.keyboard(' ')
    expect(unfold).toHaveAttribute('aria-expanded', 'false')
    expect(within(run).getAllByRole('listitem')).toHaveLength(2)
  })

  it('cuts a frame\'s very long file path, with a button to read it whole', async () => {
    const generated = `webpack-internal:///${'chunk/'.repeat(1000)}bundle.js`
    const longPath = event({
      exceptions: [
        {
          class: 'TypeError',
          message: 'x is undefined',
          type: 'browserjs',
          stacktrace: [frame({ method: 'render', file: generated, line: 1, column: 2, in_project: true })],
        },
      ],
    })
    mockApi({ ...routes(), 'GET /api/projects/p1/events/ev1': longPath })
    renderApp('/projects/p1/errors/e1/events/ev1')
    const trace = await screen.findByRole('list', { name: 'Stack frames of TypeError' })
    const row = within(trace).getByRole('listitem', { name: /^In-project frame 1: render at webpack-internal/ })
    expect(row.textContent).not.toContain(generated)
    expect(row.getAttribute('aria-label')!.length).toBeLessThan(400)
    await userEvent.click(within(row).getByRole('button', { name: 'Show all 6,033 characters of the file of frame 1' }))
    expect(row.textContent).toContain(`${generated}:1:2`)
  })

  it('says which event was not found', async () => {
    mockApi({ ...routes(), 'GET /api/projects/p1/events/gone': json({ errors: ['event not found'] }, { status: 404 }) })
    renderApp('/projects/p1/errors/e1/events/gone')
    expect(await screen.findByRole('heading', { name: 'Event not found' })).toBeInTheDocument()
    expect(screen.getByText('gone')).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Back to the project’s errors' })).toHaveAttribute('href', '/projects/p1/errors')
    expect(document.title).toBe('Event not found · Errata')
  })
})
