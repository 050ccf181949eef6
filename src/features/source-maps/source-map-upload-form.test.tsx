import { QueryClientProvider } from '@tanstack/react-query'
import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import minifiedText from '../../../test/fixtures/source-maps/terser/app.min.js?raw'
import mapText from '../../../test/fixtures/source-maps/terser/app.min.js.map?raw'
import { createQueryClient } from '../../api/query-client.ts'
import { writeToken } from '../../lib/token-store.ts'
import { json, mockUploads } from '../../test/mock-api.ts'
import { SourceMapUploadForm } from './source-map-upload-form.tsx'

function renderForm(props: { defaultAppVersion?: string; defaultMinifiedUrl?: string } = {}) {
  writeToken('test-token')
  const queryClient = createQueryClient()
  const user = userEvent.setup()
  const utils = render(
    <QueryClientProvider client={queryClient}>
      <SourceMapUploadForm projectId="p1" defaultAppVersion={props.defaultAppVersion ?? '1.2.3'} defaultMinifiedUrl={props.defaultMinifiedUrl} />
    </QueryClientProvider>,
  )
  // react-dropzone's own file input: what a drop and the file picker both feed.
  const input = utils.container.querySelector<HTMLInputElement>('input[type="file"]')!
  const drop = (...files: File[]) => user.upload(input, files)
  return { ...utils, user, drop }
}

const file = (name: string, text: string) => new File([text], name, { type: 'application/octet-stream' })
const uploadButton = () => screen.getByRole('button', { name: 'Upload source map' })

/** A promise the test settles: the server's answer arrives when the test says so. */
function deferred<T>() {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((res) => (resolve = res))
  return { promise, resolve }
}

describe('SourceMapUploadForm', () => {
  it('refuses a map that is not JSON before uploading anything', async () => {
    const { requests } = mockUploads(() => new Response('OK'))
    const { drop } = renderForm()
    await drop(file('app.min.js.map', '<!doctype html><title>404</title>'))
    expect(await screen.findByRole('alert')).toHaveTextContent(/app\.min\.js\.map is not JSON/)
    expect(uploadButton()).toBeDisabled()
    expect(requests).toHaveLength(0)
  })

  it('refuses a map that is not version 3', async () => {
    mockUploads(() => new Response('OK'))
    const { drop } = renderForm()
    await drop(file('old.js.map', JSON.stringify({ version: 2, sources: [], mappings: '' })))
    expect(await screen.findByRole('alert')).toHaveTextContent('old.js.map: "version" is 2; only version 3 source maps are supported')
    expect(uploadButton()).toBeDisabled()
  })

  it('asks for the .map when only other files are dropped', async () => {
    mockUploads(() => new Response('OK'))
    const { drop } = renderForm()
    await drop(file('app.min.js', minifiedText))
    expect(await screen.findByRole('alert')).toHaveTextContent('Drop the source map (a .map file) with the other files.')
  })

  it('prefills the URL from the map and the version, shows progress, and sends the fields the upload tools send', async () => {
    const answer = deferred<Response>()
    const { requests } = mockUploads(() => answer.promise)
    const { drop, user } = renderForm({ defaultAppVersion: '4.5.6' })
    await drop(file('app.min.js.map', mapText), file('app.min.js', minifiedText), file('notes.txt', 'unrelated'))

    const url = screen.getByLabelText('Minified file URL')
    await waitFor(() => expect(url).toHaveValue('*/app.min.js'))
    expect(screen.getByLabelText('App version')).toHaveValue('4.5.6')
    const files = within(screen.getByRole('list', { name: 'Files to upload' }))
    expect(files.getByText(/^source map/)).toBeInTheDocument()
    expect(files.getByText(/^minified file/)).toBeInTheDocument()
    expect(files.getByText(/the source map names no source of this name/)).toBeInTheDocument()
    expect(screen.getByText(/The map names 2 sources, all with their text/)).toBeInTheDocument()

    await user.clear(url)
    await user.type(url, 'https://example.com/static/app.min.js')
    await user.click(uploadButton())

    const progress = await screen.findByRole('progressbar', { name: 'Upload progress' })
    expect(progress).toHaveAttribute('aria-valuenow', '100')
    expect(screen.getByRole('button', { name: 'Uploading…' })).toBeDisabled()

    answer.resolve(new Response('OK'))
    expect(await screen.findByRole('status')).toHaveTextContent(
      'app.min.js.map uploaded for https://example.com/static/app.min.js, version 4.5.6. It applies to events received from now on.',
    )
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument()

    expect(requests).toHaveLength(1)
    const [request] = requests
    expect(request!.method).toBe('POST')
    // As the signed-in user (recorded as the uploader), not with the project's API key.
    expect(request!.url.pathname).toBe('/api/projects/p1/source_maps')
    expect(request!.headers).toMatchObject({ Authorization: 'token test-token', 'X-Version': '2' })
    const body = request!.body
    expect([...body.keys()]).toEqual(['minifiedUrl', 'appVersion', 'sourceMap', 'minifiedFile'])
    expect(body.get('minifiedUrl')).toBe('https://example.com/static/app.min.js')
    expect(body.get('appVersion')).toBe('4.5.6')
    expect(await (body.get('sourceMap') as File).text()).toBe(mapText)
    expect(await (body.get('minifiedFile') as File).text()).toBe(minifiedText)
  })

  it('sends a source the map does not embed under the name the map gives it', async () => {
    const { requests } = mockUploads(() => new Response('OK'))
    const { drop, user } = renderForm()
    const map = { version: 3, file: 'bundle.js', sources: ['webpack://shop/./src/checkout.js'], names: [], mappings: 'AAAA' }
    await drop(file('bundle.js.map', JSON.stringify(map)), file('checkout.js', 'export const x = 1\n'))
    await waitFor(() => expect(screen.getByLabelText('Minified file URL')).toHaveValue('*/bundle.js'))
    await user.click(uploadButton())
    await screen.findByRole('status')
    expect(requests[0]!.body.get('webpack://shop/./src/checkout.js')).toBeInstanceOf(File)
  })

  it('a duplicate upload says to tick "Replace an earlier upload", and keeps the files for a second try', async () => {
    const refusal =
      'minifiedUrl: a source map for "*/app.min.js" with appVersion "1.2.3" was uploaded already; to replace it, upload again with overwrite=true (the CLI\'s --overwrite)'
    const { requests } = mockUploads((request) =>
      request.body.get('overwrite') === 'true' ? new Response('OK') : json({ errors: [refusal] }, { status: 409 }),
    )
    const { drop, user } = renderForm()
    await drop(file('app.min.js.map', mapText))
    await waitFor(() => expect(uploadButton()).toBeEnabled())
    await user.click(uploadButton())
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'A source map for */app.min.js, version 1.2.3, was uploaded already. To replace it, tick “Replace an earlier upload for this URL and version” and upload again.',
    )
    expect(screen.getByRole('list', { name: 'Files to upload' })).toBeInTheDocument()

    await user.click(screen.getByRole('checkbox', { name: 'Replace an earlier upload for this URL and version' }))
    await user.click(uploadButton())
    expect(await screen.findByRole('status')).toHaveTextContent('app.min.js.map uploaded for */app.min.js, version 1.2.3')
    expect(requests).toHaveLength(2)
  })

  it('shows a refusal that is not JSON with its status', async () => {
    mockUploads(() => new Response('<html>Bad gateway</html>', { status: 502 }))
    const { drop, user } = renderForm()
    await drop(file('app.min.js.map', mapText))
    await waitFor(() => expect(uploadButton()).toBeEnabled())
    await user.click(uploadButton())
    expect(await screen.findByRole('alert')).toHaveTextContent('502 <html>Bad gateway</html>')
  })

  it('takes the URL a "missing source map" link gives over the map\'s own file', async () => {
    mockUploads(() => new Response('OK'))
    const { drop } = renderForm({ defaultMinifiedUrl: 'https://cdn.example.com/app.min.js' })
    await drop(file('app.min.js.map', mapText))
    await waitFor(() => expect(uploadButton()).toBeEnabled())
    expect(screen.getByLabelText('Minified file URL')).toHaveValue('https://cdn.example.com/app.min.js')
  })
})
