import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { ErrorEvent } from '../../../contract/events.ts'
import { errorGroup, event, frame, project, thread } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const XSS = '<script>alert("pwned")</script>'

const androidEvent = event({
  exceptions: [
    {
      class: 'java.lang.IllegalStateException',
      message: 'cart is empty',
      type: 'android',
      stacktrace: [frame({ method: 'CartActivity.onPay', file: 'CartActivity.java', line: 88, in_project: true })],
    },
  ],
  threads: [
    // Sent before the error thread: the panel must still lead with the error thread.
    thread({
      id: '2',
      name: 'OkHttp Dispatcher',
      state: 'WAITING',
      stacktrace: [frame({ method: 'java.lang.Object.wait', file: 'Object.java', line: 442 })],
    }),
    thread({
      id: '1',
      name: 'main',
      state: 'RUNNABLE',
      error_reporting_thread: true,
      stacktrace: [
        frame({ method: 'com.acme.CartActivity.onPay', file: 'CartActivity.java', line: 88, in_project: true }),
        frame({ method: 'android.view.View.performClick', file: 'View.java', line: 7448 }),
        frame({ method: 'android.os.Handler.dispatchMessage', file: 'Handler.java', line: 99 }),
      ],
    }),
  ],
})

function renderEvent(body: ErrorEvent) {
  mockApi({
    'GET /api/projects/p1': project({ type: 'android' }),
    'GET /api/projects/p1/errors/e1': errorGroup(),
    'GET /api/projects/p1/events/ev1': body,
    'GET /api/projects/p1/errors/e1/events': json([]),
  })
  return renderApp('/projects/p1/errors/e1/events/ev1')
}

const threadsPanel = () => screen.findByRole('region', { name: /^Threads/ })

describe('event threads panel', () => {
  it('is absent when the event has no threads', async () => {
    renderEvent(event({ exceptions: [{ class: 'TypeError', message: 'boom', type: 'nodejs', stacktrace: [] }] }))
    await screen.findByRole('list', { name: 'Exceptions, outermost first' })
    expect(screen.queryByRole('region', { name: /^Threads/ })).not.toBeInTheDocument()
    expect(screen.queryByRole('list', { name: /Threads/ })).not.toBeInTheDocument()
  })

  it('comes after the exceptions and leads with the expanded, marked error thread', async () => {
    renderEvent(androidEvent)
    const panel = await threadsPanel()
    expect(within(panel).getByRole('heading', { name: 'Threads (2)' })).toBeInTheDocument()
    const exceptions = screen.getByRole('region', { name: 'Exception' })
    expect(exceptions.compareDocumentPosition(panel) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy()

    const main = within(within(panel).getByRole('list', { name: 'Error-reporting thread' })).getByRole('listitem', {
      name: 'Thread main',
    })
    // The other threads wait behind one toggle, after the error thread.
    const others = within(panel).getByRole('button', { name: 'Other threads (1)' })
    expect(others).toHaveAttribute('aria-expanded', 'false')
    expect(within(panel).queryByRole('listitem', { name: 'Thread OkHttp Dispatcher' })).not.toBeInTheDocument()
    await userEvent.click(others)
    expect(others).toHaveAttribute('aria-expanded', 'true')
    const okhttp = within(within(panel).getByRole('list', { name: 'Other threads' })).getByRole('listitem', {
      name: 'Thread OkHttp Dispatcher',
    })
    expect(main.compareDocumentPosition(okhttp) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy()

    expect(within(main).getByText('Crashed')).toBeInTheDocument()
    expect(within(main).getByText('RUNNABLE')).toBeInTheDocument()
    expect(within(main).getByText('android')).toBeInTheDocument()
    expect(within(okhttp).queryByText('Crashed')).not.toBeInTheDocument()
    expect(within(okhttp).getByText('WAITING')).toBeInTheDocument()

    // The error thread's trace is open, drawn by the same frame rows as the exception's.
    expect(within(main).getByRole('button', { name: 'Stack trace of thread main' })).toHaveAttribute('aria-expanded', 'true')
    const trace = within(main).getByRole('list', { name: 'Stack frames of thread main' })
    const appFrame = within(trace).getByRole('listitem', { name: /^In-project frame 1: com\.acme\.CartActivity\.onPay at CartActivity\.java:88:5/ })
    expect(within(appFrame).getByText('in project')).toBeInTheDocument()
    // Library frames stay collapsed behind one toggle, as in the exception stack.
    expect(within(trace).queryByText('android.view.View.performClick')).not.toBeInTheDocument()
    await userEvent.click(within(trace).getByRole('button', { name: 'Show 2 library frames, frames 2 to 3' }))
    expect(within(trace).getByRole('listitem', { name: /^Library frame 3: android\.os\.Handler\.dispatchMessage/ })).toBeInTheDocument()

    // Other threads start collapsed.
    expect(within(okhttp).getByRole('button', { name: 'Stack trace of thread OkHttp Dispatcher' })).toHaveAttribute(
      'aria-expanded',
      'false',
    )
    expect(within(okhttp).queryByRole('list', { name: /Stack frames/ })).not.toBeInTheDocument()
  })

  it('expands and collapses another thread to show its frames', async () => {
    renderEvent(androidEvent)
    const panel = await threadsPanel()
    await userEvent.click(within(panel).getByRole('button', { name: 'Other threads (1)' }))
    const okhttp = within(panel).getByRole('listitem', { name: 'Thread OkHttp Dispatcher' })
    const toggle = within(okhttp).getByRole('button', { name: 'Stack trace of thread OkHttp Dispatcher' })

    await userEvent.click(toggle)
    expect(toggle).toHaveAttribute('aria-expanded', 'true')
    const trace = within(okhttp).getByRole('list', { name: 'Stack frames of thread OkHttp Dispatcher' })
    expect(toggle).toHaveAttribute('aria-controls', trace.parentElement?.id)
    expect(within(trace).getByRole('listitem', { name: /^Library frame 1: java\.lang\.Object\.wait at Object\.java:442/ })).toBeInTheDocument()

    await userEvent.click(toggle)
    expect(toggle).toHaveAttribute('aria-expanded', 'false')
    expect(within(okhttp).queryByRole('list', { name: /Stack frames/ })).not.toBeInTheDocument()
  })

  it('renders thread names as text, truncating long ones and naming unnamed threads by id', async () => {
    const longName = `worker-${'x'.repeat(200)}`
    const { container } = renderEvent(
      event({
        unhandled: false,
        threads: [
          thread({ id: '7', name: XSS, error_reporting_thread: true }),
          thread({ id: '8', name: longName }),
          thread({ id: '9', name: null, state: null, type: null }),
        ],
      }),
    )
    const panel = await threadsPanel()
    await userEvent.click(within(panel).getByRole('button', { name: 'Other threads (2)' }))
    const items = within(panel).getAllByRole('listitem', { name: /^Thread / })
    expect(within(items[0]!).getByText(XSS)).toBeInTheDocument()
    expect(container.querySelector('script')).toBeNull()
    // A handled error did not crash its thread.
    expect(within(items[0]!).getByText('Error thread')).toBeInTheDocument()
    expect(within(items[0]!).getByText('No stack trace was sent for this thread.')).toBeInTheDocument()

    const long = items[1]!
    expect(within(long).queryByText(longName)).not.toBeInTheDocument()
    await userEvent.click(within(long).getByRole('button', { name: `Show all ${longName.length} characters` }))
    expect(within(long).getByText(longName)).toBeInTheDocument()

    expect(items[2]).toHaveAttribute('aria-label', 'Thread 9')
    expect(within(items[2]!).getByText('Thread 9')).toBeInTheDocument()
  })

  it('keeps the crashed thread in view and the other 199 behind a toggle, 25 at a time', async () => {
    const threads = Array.from({ length: 200 }, (_, index) =>
      thread({ id: String(index), name: `pool-${index}`, error_reporting_thread: index === 120 }),
    )
    renderEvent(event({ threads }))
    const panel = await threadsPanel()
    expect(within(panel).getAllByRole('listitem', { name: /^Thread / }).map((item) => item.getAttribute('aria-label'))).toEqual([
      'Thread pool-120',
    ])
    expect(within(panel).getByText('Crashed')).toBeInTheDocument()
    const others = within(panel).getByRole('button', { name: 'Other threads (199)' })
    others.focus()
    await userEvent.keyboard('{Enter}')
    expect(others).toHaveAttribute('aria-expanded', 'true')
    expect(within(panel).getAllByRole('listitem', { name: /^Thread / })).toHaveLength(26)
    await userEvent.click(within(panel).getByRole('button', { name: 'Show 174 more threads' }))
    expect(within(panel).getAllByRole('listitem', { name: /^Thread / })).toHaveLength(200)
    await userEvent.click(others)
    expect(within(panel).getAllByRole('listitem', { name: /^Thread / })).toHaveLength(1)
  })

  it('without an error-reporting thread, shows a few threads at once and many behind a toggle', async () => {
    const { unmount } = renderEvent(event({ threads: [thread({ id: '1', name: 'main' }), thread({ id: '2', name: 'io' })] }))
    let panel = await threadsPanel()
    expect(within(panel).getByRole('button', { name: 'All threads (2)' })).toHaveAttribute('aria-expanded', 'true')
    expect(within(panel).getAllByRole('listitem', { name: /^Thread / })).toHaveLength(2)
    unmount()

    renderEvent(event({ threads: Array.from({ length: 30 }, (_, index) => thread({ id: String(index), name: `pool-${index}` })) }))
    panel = await threadsPanel()
    expect(within(panel).queryByRole('listitem', { name: /^Thread / })).not.toBeInTheDocument()
    await userEvent.click(within(panel).getByRole('button', { name: 'All threads (30)' }))
    expect(within(panel).getAllByRole('listitem', { name: /^Thread / })).toHaveLength(25)
    await userEvent.click(within(panel).getByRole('button', { name: 'Show 5 more threads' }))
    expect(within(panel).getAllByRole('listitem', { name: /^Thread / })).toHaveLength(30)
  })

  it('starts each event with its own panel state when walking from one event to the next', async () => {
    mockApi({
      'GET /api/projects/p1': project({ type: 'android' }),
      'GET /api/projects/p1/errors/e1': errorGroup(),
      'GET /api/projects/p1/events/ev1': event({ id: 'ev1', threads: [thread({ id: '1', name: 'main' }), thread({ id: '2', name: 'io' })] }),
      'GET /api/projects/p1/events/ev2': event({
        id: 'ev2',
        threads: Array.from({ length: 30 }, (_, index) => thread({ id: String(index), name: `pool-${index}` })),
      }),
      'GET /api/projects/p1/errors/e1/events': json([]),
    })
    const { router } = renderApp('/projects/p1/errors/e1/events/ev1')
    expect(within(await threadsPanel()).getByRole('button', { name: 'All threads (2)' })).toHaveAttribute('aria-expanded', 'true')
    await router.navigate({ to: '/projects/$projectId/errors/$errorId/events/$eventId', params: { projectId: 'p1', errorId: 'e1', eventId: 'ev2' } })
    // Thirty threads start collapsed, whatever the previous event's panel was.
    expect(await screen.findByRole('button', { name: 'All threads (30)' })).toHaveAttribute('aria-expanded', 'false')
  })
})
