import type * as React from 'react'
import type { ErrorEvent } from '../../../contract/events.ts'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { CopyButton } from '../../components/ui/copy-button.tsx'
import { toStackTraceText } from './to-stack-trace-text.ts'
import { BreadcrumbsTimeline } from './breadcrumbs-timeline.tsx'
import { ContextPanels } from './context-panels.tsx'
import { EventSummary } from './event-summary.tsx'
import { ExceptionChain } from './exception-chain.tsx'
import { FeatureFlags } from './feature-flags.tsx'
import { MetadataTabs } from './metadata-tabs.tsx'
import { ThreadsPanel } from './threads-panel.tsx'
import { hasMappedFrames, MinifiedFramesToggle, SourceMapNotice } from './source-map-notice.tsx'
import { NativeSymbolsNotice, RawFramesToggle } from './native-symbols-notice.tsx'
import { hasSymbolicatedFrames } from './to-frames.ts'

function Section({ id, title, children, aside }: { id: string; title: string; children: React.ReactNode; aside?: React.ReactNode }) {
  return (
    <Card aria-labelledby={id}>
      <CardHeader>
        <CardTitle id={id}>{title}</CardTitle>
        {aside}
      </CardHeader>
      <CardContent>{children}</CardContent>
    </Card>
  )
}

/** Everything one event says, every value from the event rendered as text. */
export function EventDetail({
  event,
  metadataTab,
  onMetadataTabChange,
  navigation,
  userAction,
  showMinified = false,
  onShowMinifiedChange,
  showRaw = false,
  onShowRawChange,
  tools,
}: {
  /** Beside the navigation: what can be done with the event (raw JSON, delete). */
  tools?: React.ReactNode
  event: ErrorEvent
  /** Frames mapped by source maps shown as the notifier sent them (the toggle shows when some were). */
  showMinified?: boolean
  onShowMinifiedChange?: (showMinified: boolean) => void
  /** Native frames symbols resolved shown as they came, with their addresses (the toggle shows when some were). */
  showRaw?: boolean
  onShowRawChange?: (showRaw: boolean) => void
  metadataTab: string | undefined
  onMetadataTabChange: (tab: string) => void
  navigation?: React.ReactNode
  /** Beside the user panel's title (a link to this user's privacy requests). */
  userAction?: React.ReactNode
}) {
  // Panels keep what was expanded or shown per event (key): walking to the next event starts
  // them afresh, while the navigation keeps its focus.
  const canShowRaw = onShowRawChange !== undefined && hasSymbolicatedFrames([...event.exceptions, ...event.threads])
  const raw = showRaw && canShowRaw
  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-col-reverse gap-3 md:flex-row md:items-start md:justify-between">
        <EventSummary event={event} />
        <div className="flex flex-col items-start gap-2 md:items-end">
          {navigation}
          {tools}
        </div>
      </div>
      <Section
        id="section-exceptions"
        title={event.exceptions.length > 1 ? `Exceptions (${event.exceptions.length})` : 'Exception'}
        aside={
          <div className="flex flex-wrap items-center gap-2">
            {onShowMinifiedChange && hasMappedFrames(event.exceptions) ? (
              <MinifiedFramesToggle pressed={showMinified} onChange={onShowMinifiedChange} />
            ) : null}
            {canShowRaw ? <RawFramesToggle pressed={raw} onChange={onShowRawChange} /> : null}
            <CopyButton value={toStackTraceText(event.exceptions)} label="Copy stack trace" />
          </div>
        }
      >
        <div className="flex flex-col gap-3">
          <SourceMapNotice projectId={event.project_id} symbolication={event.symbolication} />
          <NativeSymbolsNotice projectId={event.project_id} symbolication={event.native_symbolication} />
          <ExceptionChain key={event.id} exceptions={event.exceptions} showMinified={showMinified} showRaw={raw} />
        </div>
      </Section>
      {event.threads.length > 0 ? (
        <Section id="section-threads" title={`Threads (${event.threads.length})`}>
          <ThreadsPanel key={event.id} threads={event.threads} unhandled={event.unhandled} raw={raw} />
        </Section>
      ) : null}
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <Section id="section-breadcrumbs" title={`Breadcrumbs (${event.breadcrumbs.length})`}>
          <BreadcrumbsTimeline key={event.id} breadcrumbs={event.breadcrumbs} eventTime={event.received_at} />
        </Section>
        <div className="flex flex-col gap-4">
          <Section id="section-metadata" title="Metadata">
            <MetadataTabs key={event.id} metadata={event.meta_data} selected={metadataTab} onSelect={onMetadataTabChange} />
          </Section>
          <Section id="section-feature-flags" title={`Feature flags (${event.feature_flags.length})`}>
            <FeatureFlags flags={event.feature_flags} />
          </Section>
        </div>
      </div>
      <ContextPanels key={event.id} event={event} userAction={userAction} />
    </div>
  )
}
