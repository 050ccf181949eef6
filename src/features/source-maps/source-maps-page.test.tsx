import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { NativeSymbolFile } from '../../../contract/native.ts'
import type { SourceMap } from '../../../contract/source-maps.ts'
import { event, organization, project, signedInCollaborator, signedInUser } from '../../test/fixtures.ts'
import { json, mockApi, type MockRequest } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const me = signedInUser

const sourceMap = (overrides: Partial<SourceMap> = {}): SourceMap => ({
  id: 'sm1',
  project_id: 'p1',
  type: 'js',
  minified_url: 'https://cdn.example.com/assets/app.*.js',
  app_version: '1.2.3',
  code_bundle_id: null,
  platform: null,
  app_version_code: null,
  dev: false,
  project_root: null,
  map_file: 'app.min.js',
  sources_count: 48,
  has_minified_file: true,
  size_bytes: 2_400_000,
  stored_bytes: 600_000,
  uploaded_by: { type: 'api_key' },
  uploaded_at: new Date(Date.now() - 3_600_000).toISOString(),
  events_mapped: 1234,
  url: 'http://localhost:3000/api/projects/p1/source_maps/sm1',
  ...overrides,
})

function routes(isAdmin: boolean, maps: SourceMap[]) {
  const state = { maps: [...maps], searches: [] as string[] }
  return {
    state,
    routes: {
      'GET /api/user': me,
      'GET /api/user/organizations': [organization()],
      'GET /api/organizations/org1': organization(),
      'GET /api/organizations/org1/collaborators': [signedInCollaborator(isAdmin)],
      'GET /api/projects/p1': project({ type: 'browser' }),
      'GET /api/projects/p1/events': [event({ app_version: '7.0.1' })],
      'GET /api/projects/p1/source_maps': (request: MockRequest) => {
        const q = request.url.searchParams.get('q') ?? ''
        state.searches.push(q)
        return json(state.maps.filter((map) => `${map.minified_url} ${map.app_version}`.toLowerCase().includes(q.toLowerCase())))
      },
      'DELETE /api/projects/p1/source_maps/sm1': () => {
        state.maps = state.maps.filter((map) => map.id !== 'sm1')
        return new Response(null, { status: 204 })
      },
    },
  }
}

describe('source maps & symbols page', () => {
  it('lists the uploads and lets an admin delete one after confirming', async () => {
    const { state, routes: table } = routes(true, [sourceMap(), sourceMap({ id: 'sm2', minified_url: '*/vendor.js', app_version: null, uploaded_by: { type: 'user', id: 'u1', name: 'Ada', email: 'ada@example.com' } })])
    mockApi(table)
    renderApp('/projects/p1/source-maps')
    const list = await screen.findByRole('list', { name: 'Uploaded source maps' })
    const first = within(list).getByRole('listitem', { name: 'https://cdn.example.com/assets/app.*.js, version 1.2.3' })
    expect(first).toHaveTextContent('48 sources, minified file · 2.3 MB')
    expect(first).toHaveTextContent('by the API key')
    expect(first).toHaveTextContent('1,234 events mapped')
    expect(within(list).getByRole('listitem', { name: '*/vendor.js, no app version' })).toHaveTextContent('by Ada')
    expect(screen.getByRole('link', { name: 'Source maps & symbols' })).toHaveAttribute('aria-current', 'page')
    expect(screen.getByLabelText('App version')).toHaveValue('7.0.1')

    await userEvent.click(within(first).getByRole('button', { name: 'Delete the source map for https://cdn.example.com/assets/app.*.js, version 1.2.3' }))
    const dialog = await screen.findByRole('dialog', { name: 'Delete this source map?' })
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete source map' }))
    await waitFor(() => expect(within(list).queryByRole('listitem', { name: /app\.\*\.js/ })).not.toBeInTheDocument())
    expect(state.maps.map((map) => map.id)).toEqual(['sm2'])
  })

  it('shows members the uploads without Delete', async () => {
    mockApi(routes(false, [sourceMap()]).routes)
    renderApp('/projects/p1/source-maps')
    const list = await screen.findByRole('list', { name: 'Uploaded source maps' })
    expect(within(list).queryByRole('button', { name: /Delete/ })).not.toBeInTheDocument()
    expect(screen.getByText('Only organization admins can delete source maps.')).toBeInTheDocument()
  })

  it('searches by URL or version, the search in the URL, and says when nothing matches', async () => {
    const { state, routes: table } = routes(true, [sourceMap()])
    mockApi(table)
    const { router } = renderApp('/projects/p1/source-maps')
    await screen.findByRole('list', { name: 'Uploaded source maps' })
    await userEvent.type(screen.getByRole('searchbox', { name: 'Search source maps by URL or app version' }), 'nothing')
    expect(await screen.findByText('No source map matches')).toBeInTheDocument()
    expect(router.state.location.search).toMatchObject({ q: 'nothing' })
    expect(state.searches.at(-1)).toBe('nothing')
  })

  it('says when there are none yet, and prefills the form from a "missing source map" link', async () => {
    mockApi(routes(true, []).routes)
    renderApp('/projects/p1/source-maps?url=https%3A%2F%2Fcdn.example.com%2Fapp.min.js&version=1.2.3')
    expect(await screen.findByText('No source maps yet')).toBeInTheDocument()
    expect(screen.getByLabelText('Minified file URL')).toHaveValue('https://cdn.example.com/app.min.js')
    expect(screen.getByLabelText('App version')).toHaveValue('1.2.3')
  })

  it('switches to the native symbols tab, the tab in the URL', async () => {
    mockApi({ ...routes(true, []).routes, 'GET /api/projects/p1/native_symbols': [] })
    const { router } = renderApp('/projects/p1/source-maps')
    await userEvent.click(await screen.findByRole('tab', { name: 'Native symbols' }))
    expect(await screen.findByRole('form', { name: 'Upload a Breakpad symbol file' })).toBeInTheDocument()
    expect(screen.getByRole('form', { name: 'Upload a shared library' })).toBeInTheDocument()
    expect(await screen.findByText('No symbol files yet')).toBeInTheDocument()
    expect(router.state.location.search).toMatchObject({ kind: 'native' })
  })
})

const symbolFile = (overrides: Partial<NativeSymbolFile> = {}): NativeSymbolFile => ({
  id: 'ns1',
  kind: 'breakpad',
  debug_id: '78E6C3C4C58290AE748762B6CCAF46F60',
  code_id: 'c4c3e67882c5ae90748762b6ccaf46f60a4db16a',
  os: 'linux',
  arch: 'arm64',
  module_name: 'libcrash.so',
  version: null,
  has_symbols: true,
  has_line_info: true,
  has_inline_info: false,
  has_cfi: true,
  size: 2_400_000,
  uploaded_at: new Date(Date.now() - 3_600_000).toISOString(),
  uploaded_by: null,
  ...overrides,
})

function nativeRoutes(isAdmin: boolean, files: NativeSymbolFile[] | Response) {
  const state = { files: Array.isArray(files) ? [...files] : [] }
  return {
    state,
    routes: {
      ...routes(isAdmin, []).routes,
      'GET /api/projects/p1/native_symbols': () => (files instanceof Response ? files.clone() : json(state.files)),
      'DELETE /api/projects/p1/native_symbols/ns1': () => {
        state.files = state.files.filter((file) => file.id !== 'ns1')
        return new Response(null, { status: 204 })
      },
    },
  }
}

describe('native symbol files on the source maps & symbols page', () => {
  const stripped = symbolFile({
    id: 'ns2',
    kind: 'elf',
    module_name: 'libgame.so',
    debug_id: '20AD60B0B4C68177552708AA192E77390',
    code_id: 'b060ad20c6b47781552708aa192e7739fac7c84a',
    arch: 'x86_64',
    has_line_info: false,
    has_cfi: false,
    size: 3536,
    uploaded_by: { id: 'u1', name: 'Ada' },
  })

  it('lists each file in words, with copyable ids, and lets an admin delete one after confirming', async () => {
    const { state, routes: table } = nativeRoutes(true, [symbolFile(), stripped])
    mockApi(table)
    renderApp('/projects/p1/source-maps?kind=native')
    const list = await screen.findByRole('table', { name: 'Uploaded symbol files, newest first' })
    const [, first, second] = within(list).getAllByRole('row')
    expect(within(first!).getByRole('rowheader')).toHaveTextContent('libcrash.so')
    expect(first).toHaveTextContent('78E6C3C4C58290AE748762B6CCAF46F60')
    expect(first).toHaveTextContent('c4c3e67882c5ae90748762b6ccaf46f60a4db16a')
    expect(first).toHaveTextContent('arm64')
    expect(first).toHaveTextContent('.sym')
    expect(first).toHaveTextContent('2.3 MB')
    expect(first).toHaveTextContent('upload tool')
    expect(first).toHaveTextContent('unwind info')
    expect(first).not.toHaveTextContent('no line information')
    expect(within(first!).getByRole('button', { name: 'Copy the debug id of libcrash.so' })).toBeInTheDocument()
    expect(within(first!).getByRole('button', { name: 'Copy the build id of libcrash.so' })).toBeInTheDocument()
    expect(second).toHaveTextContent('ELF')
    expect(second).toHaveTextContent('Ada')
    expect(second).toHaveTextContent('no line information: upload the unstripped library')
    expect(second).not.toHaveTextContent('unwind info')

    await userEvent.click(within(first!).getByRole('button', { name: 'Delete the symbols for libcrash.so (arm64, .sym)' }))
    const dialog = await screen.findByRole('dialog', { name: 'Delete these symbols?' })
    expect(dialog).toHaveTextContent('libcrash.so (arm64, .sym, debug id 78E6C3C4C58290AE748762B6CCAF46F60)')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete symbols' }))
    await waitFor(() => expect(within(list).queryByRole('rowheader', { name: /libcrash\.so/ })).not.toBeInTheDocument())
    expect(state.files.map((file) => file.id)).toEqual(['ns2'])
  })

  it('shows members the files without Delete', async () => {
    mockApi(nativeRoutes(false, [symbolFile()]).routes)
    renderApp('/projects/p1/source-maps?kind=native')
    const list = await screen.findByRole('table', { name: 'Uploaded symbol files, newest first' })
    expect(within(list).queryByRole('button', { name: /Delete/ })).not.toBeInTheDocument()
    expect(screen.getByText('Only organization admins can delete symbol files.')).toBeInTheDocument()
  })

  it('says when the list cannot be loaded, with a retry', async () => {
    mockApi(nativeRoutes(true, json({ errors: ['database unavailable'] }, { status: 503 })).routes)
    renderApp('/projects/p1/source-maps?kind=native')
    expect(await screen.findByText('Could not load the symbol files')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: /Retry/ })).toBeInTheDocument()
  })
})
