import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { QueryClientProvider } from '@tanstack/react-query'
import { render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { NativeSymbolFile } from '../../../contract/native.ts'
import { createQueryClient } from '../../api/query-client.ts'
import { writeToken } from '../../lib/token-store.ts'
import { json, mockUploads } from '../../test/mock-api.ts'
import { BreakpadUploadForm, SharedObjectUploadForm } from './native-upload-forms.tsx'

const NATIVE = join(import.meta.dirname, '../../../test/fixtures/native')
const fixture = (name: string) => readFileSync(join(NATIVE, name))
const file = (name: string, bytes: Uint8Array<ArrayBuffer> | string) => new File([bytes], name, { type: 'application/octet-stream' })
const LIBCRASH_BUILD_ID = 'c4c3e67882c5ae90748762b6ccaf46f60a4db16a'

const symbolFile = (overrides: Partial<NativeSymbolFile> = {}): NativeSymbolFile => ({
  id: 'ns1',
  kind: 'breakpad',
  debug_id: '78E6C3C4C58290AE748762B6CCAF46F60',
  code_id: LIBCRASH_BUILD_ID,
  os: 'linux',
  arch: 'arm64',
  module_name: 'libcrash.aarch64.so',
  version: null,
  has_symbols: true,
  has_line_info: true,
  has_inline_info: false,
  has_cfi: true,
  size: 818,
  uploaded_at: '2026-11-22T10:00:00.000Z',
  uploaded_by: { id: 'u1', name: 'Ada' },
  ...overrides,
})

/** A promise the test settles: the server's answer arrives when the test says so. */
function deferred<T>() {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((res) => (resolve = res))
  return { promise, resolve }
}

function renderForm(form: 'breakpad' | 'elf') {
  writeToken('test-token')
  const user = userEvent.setup()
  const utils = render(
    <QueryClientProvider client={createQueryClient()}>
      {form === 'breakpad' ? <BreakpadUploadForm projectId="p1" /> : <SharedObjectUploadForm projectId="p1" />}
    </QueryClientProvider>,
  )
  const input = utils.container.querySelector<HTMLInputElement>('input[type="file"]')!
  return { ...utils, user, drop: (dropped: File) => user.upload(input, dropped) }
}

describe('BreakpadUploadForm', () => {
  const uploadButton = () => screen.getByRole('button', { name: 'Upload symbol file' })

  it('refuses a file whose first line is not a MODULE line, before uploading anything', async () => {
    const { requests } = mockUploads(() => json(symbolFile(), { status: 201 }))
    const { drop } = renderForm('breakpad')
    await drop(file('libcrash.sym', '<!doctype html><title>Not found</title>'))
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'libcrash.sym is not a Breakpad symbol file: its first line should start with “MODULE”, as the files dump_syms writes do.',
    )
    expect(uploadButton()).toBeDisabled()
    expect(requests).toHaveLength(0)
  })

  it('shows what the MODULE line says, uploads with progress and says what the server made of it', async () => {
    const answer = deferred<Response>()
    const { requests } = mockUploads(() => answer.promise)
    const { drop, user } = renderForm('breakpad')
    await drop(file('libcrash.aarch64.sym', fixture('libcrash.aarch64.sym')))
    const facts = within(await screen.findByLabelText('What libcrash.aarch64.sym says'))
    expect(facts.getByText('libcrash.aarch64.so')).toBeInTheDocument()
    expect(facts.getByText('Linux')).toBeInTheDocument()
    expect(facts.getByText('arm64')).toBeInTheDocument()
    expect(facts.getByText('78E6C3C4C58290AE748762B6CCAF46F60')).toBeInTheDocument()
    expect(facts.getByText(LIBCRASH_BUILD_ID)).toBeInTheDocument()

    await user.type(screen.getByLabelText(/Project root/), '/home/ci/app')
    await user.click(screen.getByRole('checkbox', { name: 'Replace symbols uploaded earlier for this module' }))
    await user.click(uploadButton())
    expect(await screen.findByRole('progressbar', { name: 'Upload progress' })).toHaveAttribute('aria-valuenow', '100')
    expect(screen.getByText('Uploaded; the server is checking the symbols…')).toBeInTheDocument()

    answer.resolve(json(symbolFile(), { status: 201 }))
    expect(await screen.findByRole('status')).toHaveTextContent(
      'libcrash.aarch64.sym uploaded: symbols for libcrash.aarch64.so (arm64). They apply to events received from now on.',
    )
    expect(screen.queryByLabelText('What libcrash.aarch64.sym says')).not.toBeInTheDocument()

    const [request] = requests
    expect(request!.url.pathname).toBe('/api/projects/p1/native_symbols')
    expect(request!.url.searchParams.get('kind')).toBe('breakpad')
    expect(request!.headers).toMatchObject({ Authorization: 'token test-token' })
    expect([...request!.body.keys()]).toEqual(['overwrite', 'project_root', 'symbol_file'])
    expect(request!.body.get('project_root')).toBe('/home/ci/app')
    expect(await (request!.body.get('symbol_file') as File).text()).toBe(fixture('libcrash.aarch64.sym').toString('utf8'))
  })

  it("shows the server's refusal in its words, and says how to replace a duplicate", async () => {
    let answer = json({ errors: ['symbol_file: line 12: a line record before any FUNC record'] }, { status: 400 })
    mockUploads(() => answer)
    const { drop, user } = renderForm('breakpad')
    await drop(file('libcrash.aarch64.sym', fixture('libcrash.aarch64.sym')))
    await screen.findByLabelText('What libcrash.aarch64.sym says')
    await user.click(uploadButton())
    const alert = await screen.findByRole('alert')
    expect(alert).toHaveTextContent('The server refused libcrash.aarch64.sym:line 12: a line record before any FUNC record')
    expect(alert).not.toHaveTextContent('symbol_file')

    answer = json({ errors: ['duplicate symbols file'] }, { status: 409 })
    await user.click(uploadButton())
    expect(await screen.findByText(/were uploaded already/)).toHaveTextContent(
      'Symbols for libcrash.aarch64.so (debug id 78E6C3C4C58290AE748762B6CCAF46F60) were uploaded already. To replace them, tick “Replace symbols uploaded earlier for this module” and upload again.',
    )
  })
})

describe('SharedObjectUploadForm', () => {
  const uploadButton = () => screen.getByRole('button', { name: 'Upload library' })

  it('refuses a file that is neither ELF nor gzip, in words', async () => {
    const { requests } = mockUploads(() => json(symbolFile(), { status: 201 }))
    const { drop } = renderForm('elf')
    await drop(file('libcrash.sym', fixture('libcrash.aarch64.sym')))
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'libcrash.sym is not a shared library (.so): it is a Breakpad symbol file (.sym); drop it on the .sym form instead.',
    )
    expect(uploadButton()).toBeDisabled()
    expect(requests).toHaveLength(0)
  })

  it('shows the build id read in the browser, uploads with the fields the upload tools send, and says when lines are missing', async () => {
    const { requests } = mockUploads(() =>
      json(symbolFile({ kind: 'elf', has_line_info: false, has_cfi: false, module_name: 'libcrash.so', size: 3536 }), { status: 201 }),
    )
    const { drop, user } = renderForm('elf')
    await drop(file('libcrash.aarch64.so', fixture('libcrash.aarch64.so')))
    const facts = within(await screen.findByLabelText('What libcrash.aarch64.so says'))
    expect(facts.getByText('Shared library (ELF)')).toBeInTheDocument()
    expect(facts.getByText('arm64, 64-bit')).toBeInTheDocument()
    expect(facts.getByText(LIBCRASH_BUILD_ID)).toBeInTheDocument()
    expect(facts.getByText('78E6C3C4C58290AE748762B6CCAF46F60')).toBeInTheDocument()

    await user.type(screen.getByLabelText(/Library name/), 'libcrash.so')
    await user.type(screen.getByLabelText(/Project root/), '/src/app')
    await user.click(uploadButton())
    const status = await screen.findByRole('status')
    expect(status).toHaveTextContent('libcrash.aarch64.so uploaded: symbols for libcrash.so (arm64).')
    expect(status).toHaveTextContent('It has no line information, so frames will show function names without file and line: upload the unstripped library for those.')

    const [request] = requests
    expect(request!.url.searchParams.get('kind')).toBe('elf')
    expect([...request!.body.keys()]).toEqual(['projectRoot', 'sharedObjectName', 'soFile'])
    expect(request!.body.get('sharedObjectName')).toBe('libcrash.so')
    expect((request!.body.get('soFile') as File).size).toBe(fixture('libcrash.aarch64.so').length)
  })

  it('sends the file name as the library name when none is typed', async () => {
    const { requests } = mockUploads(() => json(symbolFile({ kind: 'elf' }), { status: 201 }))
    const { drop, user } = renderForm('elf')
    await drop(file('libcrash.so.debug', fixture('libcrash.aarch64.so.debug')))
    await screen.findByLabelText('What libcrash.so.debug says')
    expect(screen.getByLabelText(/Library name/)).toHaveAttribute('placeholder', 'libcrash.so')
    await user.click(uploadButton())
    await screen.findByRole('status')
    expect(requests[0]!.body.get('sharedObjectName')).toBe('libcrash.so')
  })

  it('takes a .so.gz, and says the build id is read on upload when the browser cannot unpack it', async () => {
    mockUploads(() => json({ errors: ['soFile: has no GNU build id (link with -Wl,--build-id)'] }, { status: 400 }))
    const { drop, user } = renderForm('elf')
    // jsdom's files have no stream() to unpack from: as a browser without DecompressionStream.
    await drop(file('libcrash.so.gz', new Uint8Array(gzipSync(fixture('libcrash.aarch64.so')))))
    expect(await screen.findByText('The build id will be read on upload.')).toBeInTheDocument()
    expect(screen.getByText('Shared library, gzipped')).toBeInTheDocument()
    await user.click(uploadButton())
    expect(await screen.findByRole('alert')).toHaveTextContent('The server refused libcrash.so.gz:has no GNU build id (link with -Wl,--build-id)')
  })
})
