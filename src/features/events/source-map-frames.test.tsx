import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { errorGroup, event, frame, project } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const minifiedFrame = (column: number, method: string) => ({
  file: 'https://cdn.example.com/assets/app.min.js',
  line: 1,
  column,
  method,
  in_project: false,
  code: null,
})

// As the symbolicator stores a browser event: mapped frames carry the original beside them.
const mappedEvent = event({
  exceptions: [
    {
      class: 'TypeError',
      message: 'item pen has no price',
      type: 'browserjs',
      stacktrace: [
        frame({
          file: 'src/util.js',
          line: 5,
          column: 13,
          method: 'computeTotal',
          in_project: true,
          code: { '4': "    if (typeof item.price !== 'number') {", '5': '      throw new TypeError(`item ${item.name} has no price`);', '6': '    }' },
          minified: minifiedFrame(481, 'u'),
          source_map_id: 'sm1',
        }),
        frame({ file: 'src/index.js', line: 4, column: 17, method: 'checkout', in_project: true, code: null, minified: minifiedFrame(596, 'i') }),
        frame({ file: 'https://cdn.example.com/assets/vendor.min.js', line: 1, column: 99, method: 'Mb', in_project: false }),
      ],
    },
  ],
  app: { version: '1.2.3' },
  symbolication: {
    status: 'partial',
    mapped_frames: 2,
    missing: [{ url: 'https://cdn.example.com/assets/vendor.min.js', app_version: '1.2.3' }],
    errors: [],
  },
})

function routes() {
  return {
    'GET /api/projects/p1': project({ type: 'browser' }),
    'GET /api/projects/p1/errors/e1': errorGroup(),
    'GET /api/projects/p1/events/ev1': mappedEvent,
    'GET /api/projects/p1/errors/e1/events': json([]),
  }
}

describe('source-mapped frames on the event page', () => {
  it('shows the original frames with their code, and the minified ones on request, the choice in the URL', async () => {
    mockApi(routes())
    const { router } = renderApp('/projects/p1/errors/e1/events/ev1')
    const trace = await screen.findByRole('list', { name: 'Stack frames of TypeError' })
    expect(within(trace).getByRole('listitem', { name: 'In-project frame 1: computeTotal at src/util.js:5:13' })).toBeInTheDocument()
    expect(screen.getByLabelText('Code around src/util.js:5:13')).toHaveTextContent('throw new TypeError')

    const toggle = within(screen.getByRole('group', { name: 'Stack frames' }))
    expect(toggle.getByRole('button', { name: 'Original' })).toHaveAttribute('aria-pressed', 'true')
    await userEvent.click(toggle.getByRole('button', { name: 'Minified' }))

    const raw = await screen.findByRole('list', { name: 'Minified stack frames of TypeError' })
    expect(within(raw).getByRole('listitem', { name: 'Library frame 1: u at https://cdn.example.com/assets/app.min.js:1:481' })).toBeInTheDocument()
    expect(within(raw).getByRole('listitem', { name: 'Library frame 2: i at https://cdn.example.com/assets/app.min.js:1:596' })).toBeInTheDocument()
    // A frame no map applied to is the same either way.
    expect(within(raw).getByRole('listitem', { name: /^Library frame 3: Mb at https:\/\/cdn\.example\.com\/assets\/vendor\.min\.js/ })).toBeInTheDocument()
    await waitFor(() => expect(router.state.location.search).toMatchObject({ frames: 'minified' }))
  })

  it('opens with the minified frames when the URL asks for them', async () => {
    mockApi(routes())
    renderApp('/projects/p1/errors/e1/events/ev1?frames=minified')
    expect(await screen.findByRole('list', { name: 'Minified stack frames of TypeError' })).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Minified' })).toHaveAttribute('aria-pressed', 'true')
  })

  it('names the file and version a source map is missing for, linking to the upload page with both filled in', async () => {
    mockApi(routes())
    renderApp('/projects/p1/errors/e1/events/ev1')
    expect(await screen.findByText(/no source map for/)).toHaveTextContent('no source map for https://cdn.example.com/assets/vendor.min.js, version 1.2.3')
    const link = screen.getByRole('link', { name: 'Upload a source map for https://cdn.example.com/assets/vendor.min.js, version 1.2.3' })
    const href = new URL(link.getAttribute('href')!, window.location.origin)
    expect(href.pathname).toBe('/projects/p1/source-maps')
    expect(href.searchParams.get('url')).toBe('https://cdn.example.com/assets/vendor.min.js')
    expect(href.searchParams.get('version')).toBe('1.2.3')
  })

  it('says nothing of minified frames on @bugsnag/node\'s real event, as the server reads it (no symbolication)', async () => {
    // The notifier's capture (test/fixtures/wire); server/symbolication/missing-maps.test.ts checks the API gives it no symbolication.
    const capture = JSON.parse(readFileSync(join(process.cwd(), 'test/fixtures/wire/node-notify-cjs-inproject.request.json'), 'utf8')) as {
      json: { events: { exceptions: { errorClass: string; errorMessage: string; stacktrace: Record<string, unknown>[] }[] }[] }
    }
    const sent = capture.json.events[0]!.exceptions[0]!
    const nodeEvent = event({
      exceptions: [
        {
          class: sent.errorClass,
          message: sent.errorMessage,
          type: 'nodejs',
          stacktrace: sent.stacktrace.map((f) =>
            frame({ file: f.file as string, line: f.lineNumber as number, column: f.columnNumber as number, method: (f.method as string | undefined) ?? null, in_project: f.inProject === true }),
          ),
        },
      ],
    })
    mockApi({ ...routes(), 'GET /api/projects/p1': project({ type: 'node' }), 'GET /api/projects/p1/events/ev1': nodeEvent })
    renderApp('/projects/p1/errors/e1/events/ev1')
    const trace = await screen.findByRole('list', { name: 'Stack frames of Error' })
    expect(within(trace).getByRole('listitem', { name: 'In-project frame 1: boom at cjs-probe.cjs:3:26' })).toBeInTheDocument()
    expect(screen.queryByText(/minified|no source map/i)).not.toBeInTheDocument()
    expect(screen.queryByRole('group', { name: 'Stack frames' })).not.toBeInTheDocument()
  })

  it('shows neither hint nor toggle for an event without source-mapped frames', async () => {
    mockApi({ ...routes(), 'GET /api/projects/p1/events/ev1': event() })
    renderApp('/projects/p1/errors/e1/events/ev1')
    await screen.findByRole('heading', { name: 'Exception' })
    expect(screen.queryByRole('group', { name: 'Stack frames' })).not.toBeInTheDocument()
    expect(screen.queryByText(/no source map for/)).not.toBeInTheDocument()
  })
})
