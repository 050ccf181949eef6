import type * as React from 'react'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { PageHeader } from '../../components/ui/page-header.tsx'
import { EmptyState } from '../../components/ui/states.tsx'
import { Tabs } from '../../components/ui/tabs.tsx'
import { SourceMapUploadForm } from './source-map-upload-form.tsx'
import { SourceMapsList } from './source-maps-list.tsx'

/**
 * The kinds of debug files a project's stack traces are made readable with. JavaScript source maps
 * are accepted today; native symbol files will join them here, each with its own form and list.
 */
export const SYMBOL_KINDS = [
  { id: 'js', tab: 'JavaScript source maps', available: true },
  { id: 'ndk', tab: 'Android NDK symbols', available: false },
  { id: 'breakpad', tab: 'Breakpad symbols', available: false },
] as const
export type SymbolKind = (typeof SYMBOL_KINDS)[number]['id']

const LATER: Record<Exclude<SymbolKind, 'js'>, { title: string; text: string }> = {
  ndk: {
    title: 'Android NDK symbols are not accepted yet',
    text: 'Native frames of Android apps show their library and address (libapp.so + 0x1a2b) until symbol files can be uploaded here.',
  },
  breakpad: {
    title: 'Breakpad symbols are not accepted yet',
    text: 'Minidump crashes (Electron, native desktop apps) show module and address until Breakpad .sym files can be uploaded here.',
  },
}

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

/**
 * "Source maps & symbols": upload a map by dropping it (with its minified file and sources), and
 * the project's uploads below with search and, for admins, delete. The kind, the search and any
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
            <EmptyState title={LATER[kind].title}>
              {LATER[kind].text}
            </EmptyState>
          )
        }
      </Tabs>
    </div>
  )
}
