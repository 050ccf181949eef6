// What alert and digest emails say, in words: what happened, to which error of which project,
// its counts, a link to it, why the reader gets it and how to stop it. Event data (error class,
// message, context, comments) is text to renderEmail, which escapes it.
import { NOTIFICATION_KIND_LABELS, type NotificationKind } from '../../contract/notifications.ts'
import type { EmailContent } from '../mail/render.ts'
import type { PayloadUrls } from '../webhooks/payload.ts'

export type AlertKind = Exclude<NotificationKind, 'digest'>

/** An error as its alerts describe it. */
export interface AlertError {
  id: string
  projectId: string
  projectName: string
  errorClass: string
  message: string
  context: string | null
  releaseStages: string[]
  events: number
  users: number
}

/** What one alert adds to the error: who did it, a comment's text, a spike's rate, what a reopened error was. */
export interface AlertDetails {
  actorName?: string
  comment?: string
  spike?: { events: number; usual: number }
  reopenedFrom?: string
}

const MAX_LINE = 300
const clip = (text: string, max = MAX_LINE) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

/** "TypeError: x is undefined", one line. */
export function errorTitle(error: Pick<AlertError, 'errorClass' | 'message'>): string {
  const title = error.message ? `${error.errorClass || 'Error'}: ${error.message}` : error.errorClass || 'Error'
  return clip(title.replace(/\s+/g, ' ').trim(), 160)
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`

export const errorPath = (error: Pick<AlertError, 'id' | 'projectId'>) => `/projects/${error.projectId}/errors/${error.id}`
export const SETTINGS_PATH = '/settings/notifications'

/** The one line an alert leaves in the digest when it was held back. */
export function alertSummary(kind: AlertKind, error: AlertError, details: AlertDetails): string {
  const title = errorTitle(error)
  switch (kind) {
    case 'new_error':
      return `New error: ${title}`
    case 'reopened':
      return `Reopened: ${title}`
    case 'spiking':
      return `Spiking (${plural(details.spike?.events ?? 0, 'event')} in an hour): ${title}`
    case 'assigned':
      return `Assigned to you by ${details.actorName ?? 'someone'}: ${title}`
    case 'comments':
      return `${details.actorName ?? 'Someone'} commented: ${title}`
  }
}

function headingOf(kind: AlertKind, error: AlertError, details: AlertDetails): string {
  const project = error.projectName
  switch (kind) {
    case 'new_error':
      return `New error in ${project}`
    case 'reopened':
      return `Error reopened in ${project}`
    case 'spiking':
      return `Error spiking in ${project}`
    case 'assigned':
      return `${details.actorName ?? 'Someone'} assigned you an error in ${project}`
    case 'comments':
      return `${details.actorName ?? 'Someone'} commented on an error in ${project}`
  }
}

export interface Unsubscribe {
  url: string
  oneClickUrl: string
}

export function alertEmail(kind: AlertKind, error: AlertError, details: AlertDetails, urls: PayloadUrls, unsubscribe: Unsubscribe): EmailContent {
  const heading = headingOf(kind, error, details)
  const facts = [
    error.releaseStages.length > 0 ? `Release stage: ${error.releaseStages.join(', ')}.` : '',
    error.context ? `Where: ${clip(error.context)}.` : '',
    `${plural(error.events, 'event')}${error.users > 0 ? ` from ${plural(error.users, 'user')}` : ''} so far.`,
  ].filter(Boolean)
  const paragraphs = [
    errorTitle(error),
    ...(kind === 'reopened' && details.reopenedFrom ? [`It was ${details.reopenedFrom === 'fixed' ? 'marked as fixed' : details.reopenedFrom} and happened again.`] : []),
    ...(kind === 'spiking' && details.spike
      ? [`${plural(details.spike.events, 'event')} this hour, against about ${plural(Math.round(details.spike.usual), 'event')} an hour over the day before.`]
      : []),
    ...(kind === 'comments' && details.comment ? [`“${clip(details.comment, 1000)}”`] : []),
    facts.join(' '),
  ]
  const label = NOTIFICATION_KIND_LABELS[kind].label
  return {
    subject: `${heading}: ${errorTitle(error)}`,
    heading,
    paragraphs,
    action: { label: 'Open the error', url: urls.web(errorPath(error)) },
    footer: [`You get this because “${label}” is on for ${error.projectName} in your notification settings: ${urls.web(SETTINGS_PATH)}`],
    unsubscribe,
  }
}

/** A project's part of a digest. */
export interface DigestProject {
  projectName: string
  newErrors: Array<AlertError>
  newCount: number
  openErrors: Array<AlertError>
  openCount: number
}

export function digestEmail(projects: readonly DigestProject[], held: readonly { summary: string; url: string | null }[], heldTotal: number, perHour: number, urls: PayloadUrls, unsubscribe: Unsubscribe): EmailContent {
  const newTotal = projects.reduce((n, p) => n + p.newCount, 0)
  const openTotal = projects.reduce((n, p) => n + p.openCount, 0)
  const item = (e: AlertError) => ({ text: `${errorTitle(e)} (${plural(e.events, 'event')})`, url: urls.web(errorPath(e)) })
  const lists: NonNullable<EmailContent['lists']> = projects.flatMap((p) => [
    ...(p.newErrors.length > 0 ? [{ title: `${p.projectName}: ${plural(p.newCount, 'new error')} in the last day`, items: p.newErrors.map(item) }] : []),
    ...(p.openErrors.length > 0 ? [{ title: `${p.projectName}: still open and seen in the last day (${plural(p.openCount, 'open error')} in all)`, items: p.openErrors.map(item) }] : []),
  ])
  if (held.length > 0) {
    lists.push({
      title: `${plural(heldTotal, 'alert')} held back (more than ${perHour} an hour)`,
      items: [...held.map((h) => ({ text: h.summary, ...(h.url && { url: h.url }) })), ...(heldTotal > held.length ? [{ text: `and ${plural(heldTotal - held.length, 'more alert')}` }] : [])],
    })
  }
  const paragraphs = projects.map((p) => `${p.projectName}: ${plural(p.newCount, 'new error')} in the last day, ${plural(p.openCount, 'error')} open.`)
  return {
    subject:
      projects.length > 0
        ? `Errata daily digest: ${plural(newTotal, 'new error')}, ${plural(openTotal, 'open error')}`
        : `Errata daily digest: ${plural(heldTotal, 'alert')} held back`,
    heading: 'Your daily digest',
    paragraphs,
    lists,
    action: { label: 'Open Errata', url: urls.web('/') },
    footer: [`You get this because “Daily digest” is on in your notification settings, or alerts were held back: ${urls.web(SETTINGS_PATH)}`],
    unsubscribe,
  }
}
