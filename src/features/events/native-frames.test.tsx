import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it, vi } from 'vitest'
import type { NativeFrame, StackFrame } from '../../../contract/events.ts'
import { errorGroup, event, frame, project, signedInCollaborator, signedInUser, thread } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const LIBCRASH = '/data/app/com.example/lib/arm64/libcrash.aarch64.so'
const LIBC = '/apex/com.android.runtime/lib64/bionic/libc.so'
const LIBCRASH_BUILD_ID = 'c4c3e67882c5ae90748762b6ccaf46f60a4db16a'
const LIBC_BUILD_ID = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678'

const native = (overrides: Partial<NativeFrame>): NativeFrame => ({
  type: 'c',
  module: LIBCRASH,
  frame_address: '0x7843a01698',
  load_address: '0x7843a00000',
  symbol_address: null,
  relative_address: '0x1698',
  is_pc: false,
  is_lr: false,
  code_identifier: LIBCRASH_BUILD_ID,
  macho_uuid: null,
  macho_vm_address: null,
  ...overrides,
})

/** A frame symbols resolved, as the server stores it: the frame as it came kept in symbolicated_from. */
const resolved = (method: string, line: number, nativeFrame: NativeFrame, from: { method: string; line: number }, inlined = false): StackFrame =>
  frame({
    method,
    file: 'crashlib.c',
    line,
    column: null,
    native: { ...nativeFrame, symbolicated_from: { method: from.method, file: LIBCRASH, line: from.line }, symbol_file_id: 'ns1', ...(inlined && { inlined: true }) },
  })

const crashFrame = native({ is_pc: true })
const levelTwo = native({ frame_address: '0x7843a016b8', relative_address: '0x16b8' })
const ndkFrames: StackFrame[] = [
  resolved('inlined_helper', 12, crashFrame, { method: 'crash_here', line: 5784 }, true),
  resolved('crash_here', 20, crashFrame, { method: 'crash_here', line: 5784 }),
  resolved('level_two', 24, levelTwo, { method: 'level_two', line: 5816 }),
  frame({ method: 'abort', file: LIBC, line: 42, column: null, native: native({ module: LIBC, frame_address: '0x7900012345', load_address: '0x7900000000', relative_address: '0x12345', code_identifier: LIBC_BUILD_ID }) }),
]

const ndkEvent = (overrides: Partial<ReturnType<typeof event>> = {}) =>
  event({
    exceptions: [{ class: 'SIGSEGV', message: 'Segmentation violation (invalid memory reference)', type: 'c', stacktrace: ndkFrames }],
    native_symbolication: {
      status: 'partial',
      symbolicated_frames: 2,
      missing: [{ module: LIBC, debug_id: 'D4C3B2A1F6E51807293A4B5C6D7E8F900', code_id: LIBC_BUILD_ID }],
    },
    ...overrides,
  })

const minidumpFrames: StackFrame[] = [
  resolved('crash_here', 20, native({ module: 'libcrash.so', code_identifier: null, debug_id: '78E6C3C4C58290AE748762B6CCAF46F60', trust: 'context', is_pc: true }), { method: '', line: 0 }),
  resolved('level_two', 24, native({ module: 'libcrash.so', code_identifier: null, relative_address: '0x16bc', lookup_address: '0x16b8', trust: 'frame_pointer' }), { method: '', line: 0 }),
]

const minidumpEvent = () =>
  event({
    exceptions: [{ class: 'SIGSEGV', message: 'SIGSEGV at 0x10', type: 'c', stacktrace: minidumpFrames }],
    threads: [
      // Named as the server names a minidump's threads.
      thread({ id: '7', name: 'crashed thread', type: 'c', state: null, error_reporting_thread: true, stacktrace: minidumpFrames }),
      thread({ id: '8', name: 'thread 8', type: 'c', state: null, stacktrace: [frame({ method: null, file: null, line: null, column: null, native: native({ module: 'libc.so', relative_address: '0x9abc', code_identifier: null, debug_id: 'AB' }) })] }),
    ],
    native_symbolication: { status: 'symbolicated', symbolicated_frames: 2, missing: [] },
    minidump: { size: 1_250_000 },
  })

function routes(theEvent: ReturnType<typeof event>, { admin = true } = {}) {
  return {
    'GET /api/user': signedInUser,
    'GET /api/projects/p1': project({ type: 'android' }),
    'GET /api/organizations/org1/collaborators': [signedInCollaborator(admin)],
    'GET /api/projects/p1/errors/e1': errorGroup(),
    'GET /api/projects/p1/events/ev1': theEvent,
    'GET /api/projects/p1/errors/e1/events': json([]),
  }
}

describe('native frames on the event page', () => {
  it('shows resolved frames as function (file:line) with their module and address, inlined ones marked', async () => {
    mockApi(routes(ndkEvent()))
    renderApp('/projects/p1/errors/e1/events/ev1')
    const trace = await screen.findByRole('list', { name: 'Stack frames of SIGSEGV' })
    const inlined = within(trace).getByRole('listitem', { name: 'Library frame 1: inlined_helper at crashlib.c:12' })
    expect(inlined).toHaveTextContent('inlined_helper(crashlib.c:12)inlinedprogram counterlibcrash.aarch64.so + 0x1698')
    const crash = within(trace).getByRole('listitem', { name: 'Library frame 2: crash_here at crashlib.c:20' })
    expect(crash).toHaveTextContent('crash_here(crashlib.c:20)program counterlibcrash.aarch64.so + 0x1698')
    expect(crash).not.toHaveTextContent('inlined')
    expect(within(trace).getByRole('listitem', { name: 'Library frame 3: level_two at crashlib.c:24' })).toHaveTextContent('libcrash.aarch64.so + 0x16b8')
    // A frame without symbols stays its module and address.
    expect(within(trace).getByRole('listitem', { name: 'Library frame 4: abort at libc.so + 0x12345' })).toBeInTheDocument()
  })

  it('shows the frames as they came on "Show raw frames", the choice in the URL', async () => {
    mockApi(routes(ndkEvent()))
    const { router } = renderApp('/projects/p1/errors/e1/events/ev1')
    const toggle = await screen.findByRole('button', { name: 'Show raw frames' })
    expect(toggle).toHaveAttribute('aria-pressed', 'false')
    await userEvent.click(toggle)

    const raw = await screen.findByRole('list', { name: 'Raw stack frames of SIGSEGV' })
    const rows = within(raw).getAllByRole('listitem')
    // The inlined frame was added by symbols: it goes.
    expect(rows).toHaveLength(3)
    expect(rows[0]).toHaveAccessibleName('Library frame 1: crash_here at libcrash.aarch64.so + 0x1698')
    expect(rows[0]).toHaveTextContent('frame 0x7843a01698 · loaded at 0x7843a00000')
    expect(rows[1]).toHaveAccessibleName('Library frame 2: level_two at libcrash.aarch64.so + 0x16b8')
    expect(raw).not.toHaveTextContent('crashlib.c')
    await waitFor(() => expect(router.state.location.search).toMatchObject({ frames: 'raw' }))
    expect(screen.getByRole('button', { name: 'Show raw frames' })).toHaveAttribute('aria-pressed', 'true')

    await userEvent.click(screen.getByRole('button', { name: 'Show raw frames' }))
    expect(await screen.findByRole('list', { name: 'Stack frames of SIGSEGV' })).toBeInTheDocument()
  })

  it('opens with the raw frames when the URL asks for them', async () => {
    mockApi(routes(ndkEvent()))
    renderApp('/projects/p1/errors/e1/events/ev1?frames=raw')
    expect(await screen.findByRole('list', { name: 'Raw stack frames of SIGSEGV' })).toBeInTheDocument()
  })

  it('names the libraries whose symbols are missing, with a link to upload them', async () => {
    mockApi(routes(ndkEvent()))
    renderApp('/projects/p1/errors/e1/events/ev1')
    expect(await screen.findByText(/Symbols missing for/)).toHaveTextContent(`Symbols missing for libc.so (build id ${LIBC_BUILD_ID})`)
    expect(screen.getByText(/Some native frames are still addresses/)).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Upload symbols on Source maps & symbols' })).toHaveAttribute('href', '/projects/p1/source-maps?kind=native')
  })

  it('shows no notice and no toggle for an event without native frames', async () => {
    mockApi(routes(event({ exceptions: [{ class: 'TypeError', message: 'x', type: 'nodejs', stacktrace: [frame()] }] })))
    renderApp('/projects/p1/errors/e1/events/ev1')
    await screen.findByRole('list', { name: 'Stack frames of TypeError' })
    expect(screen.queryByRole('button', { name: 'Show raw frames' })).not.toBeInTheDocument()
    expect(screen.queryByText(/Symbols missing/)).not.toBeInTheDocument()
  })
})

describe('a minidump event', () => {
  it('shows its threads, the crashed one first, and how each raw frame was found', async () => {
    mockApi(routes(minidumpEvent()))
    renderApp('/projects/p1/errors/e1/events/ev1?frames=raw')
    const crashed = await screen.findByRole('listitem', { name: 'Crashed thread' })
    expect(crashed).toHaveTextContent('Crashed')
    const stack = within(crashed).getByRole('list', { name: 'Raw stack frames of crashed thread' })
    expect(stack).toHaveTextContent('found from the crash context')
    expect(stack).toHaveTextContent('looked up at 0x16b8 · found by the frame pointer chain')
    await userEvent.click(screen.getByRole('button', { name: 'Other threads (1)' }))
    expect(screen.getByRole('button', { name: 'Stack trace of thread 8' })).toHaveAttribute('aria-expanded', 'false')
  })

  it('lets an admin download the dump with the session token', async () => {
    const { requests } = mockApi({
      ...routes(minidumpEvent()),
      'GET /api/projects/p1/events/ev1/minidump': () => new Response(new Uint8Array([0x4d, 0x44, 0x4d, 0x50]), { headers: { 'Content-Type': 'application/octet-stream' } }),
    })
    const createObjectURL = vi.fn(() => 'blob:minidump')
    vi.stubGlobal(
      'URL',
      class extends URL {
        static override createObjectURL = createObjectURL
        static override revokeObjectURL = vi.fn()
      },
    )
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {})
    renderApp('/projects/p1/errors/e1/events/ev1')
    await userEvent.click(await screen.findByRole('button', { name: 'Download minidump (1.2 MB)' }))
    await waitFor(() => expect(click).toHaveBeenCalled())
    const download = requests.find((request) => request.url.pathname === '/api/projects/p1/events/ev1/minidump')
    expect(download?.headers.get('Authorization')).toBe('token test-token')
    expect(createObjectURL).toHaveBeenCalled()
    click.mockRestore()
  })

  it('offers members no download', async () => {
    mockApi(routes(minidumpEvent(), { admin: false }))
    renderApp('/projects/p1/errors/e1/events/ev1')
    await screen.findByRole('list', { name: 'Stack frames of SIGSEGV' })
    // Admin-only tools show once the collaborators are known: Delete stays away for members too.
    await waitFor(() => expect(screen.getByRole('button', { name: 'Raw JSON' })).toBeInTheDocument())
    expect(screen.queryByRole('button', { name: /Download minidump/ })).not.toBeInTheDocument()
  })
})
