import type * as React from 'react'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { PageHeader } from '../../components/ui/page-header.tsx'
import { Tabs } from '../../components/ui/tabs.tsx'
import { BreakpadUploadForm, SharedObjectUploadForm } from './native-upload-forms.tsx'
import { NativeSymbolsList } from './native-symbols-list.tsx'
import { SourceMapUploadForm } from './source-map-upload-form.tsx'
import { SourceMapsList } from './source-maps-list.tsx'

/** The kinds of debug files a project's stack traces are made readable with, each with its forms and list. */
export const SYMBOL_KINDS = [
  { id: 'js', tab: 'JavaScript source maps' },
  { id: 'native', tab: 'Native symbols' },
] as const
export type SymbolKind = (typeof SYMBOL_KINDS)[number]['id']

function UploadToolHelp({ apiKey }: { apiKey: string }) {
  const endpoint = window.location.origin
  return (
    <details className="text-sm">
      <summary className="cursor-pointer text-muted-foreground hover:text-foreground">Upload from your build instead</summary>
      <p className="mt-2 text-muted-foreground">
        Bugsnag’s upload tool works unchanged; point <code className="font-mono">--endpoint</code> at this server:
      </p>
      <pre tabIndex={0} className="mt-2 overflow-x-auto rounded-md border border-border bg-surface-muted p-3 font-mono text-xs">
        {`npx @bugsnag/source-maps upload-browser --api-key ${apiKey} \\
  --app-version 1.2.3 --directory dist \\
  --base-url 'https://your.site/assets' --endpoint ${endpoint}`}
      </pre>
    </details>
  )
}

function NativeUploadToolHelp({ apiKey }: { apiKey: string }) {
  const endpoint = window.location.origin
  return (
    <details className="text-sm">
      <summary className="cursor-pointer text-muted-foreground hover:text-foreground">Upload from your build instead</summary>
      <p className="mt-2 text-muted-foreground">
        Breakpad’s <code className="font-mono">sym_upload</code>, the Bugsnag CLI and the Android Gradle plugin work unchanged with this server as
        their upload endpoint; by hand:
      </p>
      <pre tabIndex={0} className="mt-2 overflow-x-auto rounded-md border border-border bg-surface-muted p-3 font-mono text-xs">
        {`curl -F symbol_file=@libgame.sym "${endpoint}/breakpad-symbol?api_key=${apiKey}"
curl -F soFile=@libgame.so -F apiKey=${apiKey} ${endpoint}/ndk-symbol`}
      </pre>
    </details>
  )
}

/**
 * "Source maps & symbols": upload a map by dropping it (with its minified file and sources), and
 * the project's uploads below with search and, for admins, delete; on the native tab, Breakpad
 * .sym files and shared libraries, with the project's symbol files. The kind, the search and any
 * prefilled URL and version live in the URL.
 */
export function SourceMapsPage({
  nav,
  projectId,
  projectName,
  apiKey,
  isAdmin,
  kind,
  onKindChange,
  search,
  onSearchChange,
  defaultAppVersion,
  defaultMinifiedUrl,
}: {
  nav?: React.ReactNode
  projectId: string
  projectName: string
  apiKey: string
  isAdmin: boolean
  kind: SymbolKind
  onKindChange: (kind: SymbolKind) => void
  search: string
  onSearchChange: (search: string) => void
  defaultAppVersion: string
  defaultMinifiedUrl?: string
}) {
  const tabs = SYMBOL_KINDS.map((entry) => entry.tab)
  const tabOf = (id: SymbolKind) => SYMBOL_KINDS.find((entry) => entry.id === id)?.tab ?? tabs[0]!
  return (
    <div className="flex flex-col gap-6">
      {nav}
      <PageHeader
        spacing="none"
        title={`${projectName}: source maps & symbols`}
        description="Upload the files that turn minified or native stack traces back into your source: file, line, function and the code around it."
      />
      <Tabs
        label="Kind of file"
        listClassName="flex-wrap"
        tabs={tabs}
        selected={tabOf(kind)}
        onSelect={(tab) => onKindChange(SYMBOL_KINDS.find((entry) => entry.tab === tab)?.id ?? 'js')}
      >
        {() =>
          kind === 'js' ? (
            <div className="flex flex-col gap-6">
              <Card aria-labelledby="source-map-upload-title">
                <CardHeader>
                  <CardTitle id="source-map-upload-title">Upload a source map</CardTitle>
                </CardHeader>
                <CardContent className="flex flex-col gap-4">
                  <SourceMapUploadForm
                    projectId={projectId}
                    defaultAppVersion={defaultAppVersion}
                    defaultMinifiedUrl={defaultMinifiedUrl}
                  />
                  <UploadToolHelp apiKey={apiKey} />
                </CardContent>
              </Card>
              <Card aria-labelledby="source-maps-list-title">
                <CardHeader>
                  <CardTitle id="source-maps-list-title">Uploaded source maps</CardTitle>
                </CardHeader>
                <SourceMapsList projectId={projectId} isAdmin={isAdmin} search={search} onSearchChange={onSearchChange} />
              </Card>
            </div>
          ) : (
            <div className="flex flex-col gap-6">
              <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
                <Card aria-labelledby="breakpad-upload-title">
                  <CardHeader>
                    <CardTitle id="breakpad-upload-title">Upload a Breakpad symbol file (.sym)</CardTitle>
                  </CardHeader>
                  <CardContent>
                    <BreakpadUploadForm projectId={projectId} />
                  </CardContent>
                </Card>
                <Card aria-labelledby="shared-object-upload-title">
                  <CardHeader>
                    <CardTitle id="shared-object-upload-title">Upload a shared library (.so)</CardTitle>
                  </CardHeader>
                  <CardContent>
                    <SharedObjectUploadForm projectId={projectId} />
                  </CardContent>
                </Card>
              </div>
              <NativeUploadToolHelp apiKey={apiKey} />
              <Card aria-labelledby="native-symbols-list-title">
                <CardHeader>
                  <CardTitle id="native-symbols-list-title">Uploaded symbol files</CardTitle>
                </CardHeader>
                <NativeSymbolsList projectId={projectId} isAdmin={isAdmin} />
              </Card>
            </div>
          )
        }
      </Tabs>
    </div>
  )
}
