// Filters (contract/filters.ts) as SQL conditions. One place decides what each field means,
// so the errors list, event lists, pivots, trends and privacy requests agree.
import { and, is, or, sql, type SQL } from 'drizzle-orm'
import {
  filterField,
  parseFilterParams,
  parseFilterTime,
  pivotFilterField,
  PIVOT_FIELD_IDS,
  SEARCH_FIELD_ID,
  type FilterCondition,
  type FilterFieldDefinition,
  type Filters,
} from '../../contract/filters.ts'
import { PgColumn } from 'drizzle-orm/pg-core'
import { errors, events } from '../db/schema.ts'
import { ValidationError } from '../failures.ts'

/** Filters from a request URL; 400 naming every malformed field. */
export function filtersFromUrl(url: string): Filters {
  const { filters, problems } = parseFilterParams(new URL(url).searchParams)
  if (problems.length > 0) throw new ValidationError(problems)
  return filters
}

/** What a filter is evaluated against: `me` in error.assigned_to, and `now` for relative times. */
export interface FilterContext {
  userId: string
  now: Date
}

/** The events' column behind each event-scope field. */
const EVENT_COLUMNS: Record<string, PgColumn> = {
  'app.release_stage': events.releaseStage,
  'app.version': events.appVersion,
  'user.id': events.userId,
  'user.name': events.userName,
  'user.email': events.userEmail,
  'event.class': events.errorClass,
  'event.message': events.message,
  'event.context': events.context,
  'device.os_name': events.osName,
  'device.os_version': events.osVersion,
  'device.browser_name': events.browserName,
  'device.model': events.deviceModel,
  'request.url': events.requestUrl,
}

/** Pivot fields (by filter field id): rollup rows in pivot_counts per error and per project (server/rollups/rollups.ts). */
export const ROLLUP_FIELDS: readonly string[] = PIVOT_FIELD_IDS.map(pivotFilterField)

/**
 * Free-text fields with rollup rows per error only (no pivot shows them): what substring filters
 * and the free-text search read. A row holds the value's first TEXT_ROW_CHARS characters (a
 * B-tree key must stay under a third of a page whatever the characters: 500 × 4 bytes); a row
 * that long may be cut, so it decides nothing and sends its error to the events (`mayBeCut`).
 * (Every field's rows with value '' count its events without a value: server/rollups/fold.ts.)
 */
export const TEXT_ROLLUP_FIELDS: readonly string[] = ['event.class', 'event.message', 'user.email', 'user.name']
export const TEXT_ROW_CHARS = 500

export function eventColumn(fieldId: string): PgColumn {
  const column = EVENT_COLUMNS[fieldId]
  if (!column) throw new Error(`no events column for ${fieldId}`)
  return column
}

/** `%`, `_` and `\` taken literally inside an ILIKE pattern. */
const likeLiteral = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`)
const likePattern = (value: string) => `%${likeLiteral(value)}%`

const byType = (conditions: readonly FilterCondition[], type: FilterCondition['type']) =>
  conditions.filter((c) => c.type === type).map((c) => c.value)

/**
 * One field's conditions over a column: eq values OR-ed, ne values AND-ed (a missing value
 * is "not X"), empty true/false for absent/present; then all of them AND-ed.
 */
function columnConditions(
  column: SQL | PgColumn,
  definition: FilterFieldDefinition,
  conditions: readonly FilterCondition[],
): SQL | undefined {
  const parts: (SQL | undefined)[] = []
  const equal = byType(conditions, 'eq')
  const notEqual = byType(conditions, 'ne')
  const substring = definition.match === 'substring'
  const exact = byType(conditions, 'exact')
  if (exact.length > 0) {
    // The whole value, case ignored (a substring field's `eq` is "contains").
    parts.push(or(...exact.map((v) => sql`lower(${column}) = lower(${v})`)))
  }
  if (equal.length > 0) {
    parts.push(
      substring
        ? or(...equal.map((v) => sql`${column} ILIKE ${likePattern(v)}`))
        : sql`${column} IN (${sql.join(equal.map((v) => sql`${v}`), sql`, `)})`,
    )
  }
  if (notEqual.length > 0) {
    parts.push(
      substring
        ? sql`(${column} IS NULL OR (${and(...notEqual.map((v) => sql`${column} NOT ILIKE ${likePattern(v)}`))}))`
        : sql`(${column} IS NULL OR ${column} NOT IN (${sql.join(notEqual.map((v) => sql`${v}`), sql`, `)}))`,
    )
  }
  // Class and message are NOT NULL: an event without one (Ruby's anonymous classes) stores ''.
  // Other fields are NULL when absent, but a notifier may send '' (pivots show both as "(none)").
  const blank = is(column, PgColumn) && column.notNull
  for (const empty of byType(conditions, 'empty')) {
    if (blank) parts.push(empty === 'true' ? sql`${column} = ''` : sql`${column} <> ''`)
    else parts.push(empty === 'true' ? sql`(${column} IS NULL OR ${column} = '')` : sql`${column} <> ''`)
  }
  return and(...parts)
}

/** The event columns the free-text `search` field looks in (SEARCHED_FIELDS in the contract). */
const SEARCH_COLUMNS = [events.errorClass, events.message, events.context] as const

/**
 * `search`: eq values match when any of the searched columns holds the value as a
 * case-insensitive substring (several values OR-ed); ne values when none of them does.
 */
function searchCondition(conditions: readonly FilterCondition[]): SQL | undefined {
  const matches = (value: string) => or(...SEARCH_COLUMNS.map((column) => sql`${column} ILIKE ${likePattern(value)}`))!
  const equal = byType(conditions, 'eq')
  return and(
    equal.length > 0 ? or(...equal.map(matches)) : undefined,
    ...byType(conditions, 'ne').map((value) => sql`NOT coalesce(${matches(value)}, false)`),
  )
}

function assignedToCondition(conditions: readonly FilterCondition[], context: FilterContext): SQL | undefined {
  const column = errors.assignedCollaboratorId
  const target = (value: string) => (value === 'me' ? context.userId : value)
  const parts: (SQL | undefined)[] = []
  const equal = byType(conditions, 'eq')
  if (equal.length > 0) {
    parts.push(
      or(...equal.map((v) => (v === 'anyone' ? sql`${column} IS NOT NULL` : sql`${column} = ${target(v)}`))),
    )
  }
  for (const v of byType(conditions, 'ne')) {
    parts.push(v === 'anyone' ? sql`${column} IS NULL` : sql`${column} IS DISTINCT FROM ${target(v)}`)
  }
  for (const empty of byType(conditions, 'empty')) {
    parts.push(empty === 'true' ? sql`${column} IS NULL` : sql`${column} IS NOT NULL`)
  }
  return and(...parts)
}

function seenInCondition(conditions: readonly FilterCondition[]): SQL | undefined {
  const versions = (values: string[]) => sql`ARRAY[${sql.join(values.map((v) => sql`${v}`), sql`, `)}]::text[]`
  const equal = byType(conditions, 'eq')
  const notEqual = byType(conditions, 'ne')
  return and(
    equal.length > 0 ? sql`${errors.appVersions} && ${versions(equal)}` : undefined,
    notEqual.length > 0 ? sql`NOT (${errors.appVersions} && ${versions(notEqual)})` : undefined,
  )
}

/** The parts of a filter set, split by what they test. */
export interface CompiledFilters {
  /** Conditions on the errors table (status, assignment, severity, versions seen in). */
  error?: SQL
  /** Conditions on single events (no time bounds). */
  event?: SQL
  /** event.since / event.before: received_at >= since and < before. */
  since?: Date
  before?: Date
  /** The event-scope fields used, in order. */
  eventFields: string[]
  /** The error-scope fields used (error.* and version.seen_in), in order. */
  errorFields: string[]
  /** The error.status conditions applied to another status column (rollups keyed by status). */
  statusOn?: (column: SQL) => SQL | undefined
}

export function compileFilters(filters: Filters, context: FilterContext): CompiledFilters {
  const errorParts: (SQL | undefined)[] = []
  const eventParts: (SQL | undefined)[] = []
  const eventFields: string[] = []
  const errorFields: string[] = []
  let statusOn: CompiledFilters['statusOn']
  let since: Date | undefined
  let before: Date | undefined
  for (const [fieldId, conditions] of Object.entries(filters)) {
    const definition = filterField(fieldId)
    if (!definition) throw new ValidationError(`filters[${fieldId}]: unknown filter field "${fieldId}"`)
    switch (definition.scope) {
      case 'error':
        errorFields.push(fieldId)
        if (fieldId === 'error.status') {
          statusOn = (column) => columnConditions(column, definition, conditions)
          errorParts.push(statusOn(sql`${errors.status}`))
        }
        else if (fieldId === 'error') errorParts.push(columnConditions(errors.id, definition, conditions))
        else if (fieldId === 'error.severity') {
          errorParts.push(
            columnConditions(sql`coalesce(${errors.severityOverride}, ${errors.severity})`, definition, conditions),
          )
        } else errorParts.push(assignedToCondition(conditions, context))
        break
      case 'seen_in':
        errorFields.push(fieldId)
        errorParts.push(seenInCondition(conditions))
        break
      case 'time':
        for (const condition of conditions) {
          const time = parseFilterTime(condition.value, context.now)
          if (!time) throw new ValidationError(`filters[${fieldId}]: value "${condition.value}" is not a time`)
          // Several bounds of one kind: the narrowest wins.
          if (fieldId === 'event.since') since = since && since > time ? since : time
          else before = before && before < time ? before : time
        }
        break
      case 'event':
        eventFields.push(fieldId)
        eventParts.push(
          fieldId === SEARCH_FIELD_ID ? searchCondition(conditions) : columnConditions(eventColumn(fieldId), definition, conditions),
        )
        break
    }
  }
  if (since && before && since >= before) {
    throw new ValidationError('filters[event.since]: must be earlier than filters[event.before]')
  }
  return { error: and(...errorParts), event: and(...eventParts), since, before, eventFields, errorFields, statusOn }
}

/** Time bounds on events.received_at. */
export function eventTimeConditions(compiled: CompiledFilters): SQL | undefined {
  return and(
    compiled.since ? sql`${events.receivedAt} >= ${compiled.since.toISOString()}::timestamptz` : undefined,
    compiled.before ? sql`${events.receivedAt} < ${compiled.before.toISOString()}::timestamptz` : undefined,
  )
}

/**
 * The events of a project that match every filter: event and time conditions on the
 * events row, error conditions through the event's error.
 */
export function projectEventsWhere(projectId: string, compiled: CompiledFilters, errorId?: string): SQL {
  return and(
    errorId ? sql`${events.errorId} = ${errorId}` : undefined,
    sql`${events.projectId} = ${projectId}`,
    compiled.event,
    eventTimeConditions(compiled),
    compiled.error
      ? sql`${events.errorId} IN (SELECT ${errors.id} FROM ${errors} WHERE ${errors.projectId} = ${projectId} AND ${compiled.error})`
      : undefined,
  )!
}

/**
 * One event field's conditions over the rollup rows `p` of an error (pivot_counts): `matching`
 * holds for the rows whose value satisfies them (the '' row, events without a value, included:
 * every condition treats none as ''); `mayBeCut` for the text rows that may be cut, which decide
 * nothing. Undefined when rows cannot answer: `search` with `ne` asks that none of an event's
 * three texts holds a value, which per-field rows cannot tell.
 */
export interface FieldRows {
  matching: SQL
  mayBeCut?: SQL
}

const fieldList = (fields: readonly string[]) => sql.raw(fields.map((f) => `'${f}'`).join(', '))
const cutRows = (fields: readonly string[]) =>
  sql`p.field IN (${fieldList(fields)}) AND char_length(p.value) >= ${sql.raw(String(TEXT_ROW_CHARS))}`

export function fieldRows(fieldId: string, conditions: readonly FilterCondition[]): FieldRows | undefined {
  if (fieldId === SEARCH_FIELD_ID) {
    if (conditions.some((c) => c.type !== 'eq')) return undefined
    const searched = fieldList(['event.class', 'event.message', 'event.context'])
    return {
      matching: sql`p.field IN (${searched}) AND (${or(...byType(conditions, 'eq').map((v) => sql`p.value ILIKE ${likePattern(v)}`))})`,
      mayBeCut: cutRows(['event.class', 'event.message']),
    }
  }
  const definition = filterField(fieldId)!
  // `exact` on rows also as an ILIKE without wildcards, which the trigram index answers (lower() = lower() alone scans the field).
  const exact = byType(conditions, 'exact').map((v) => sql`p.value ILIKE ${likeLiteral(v)}`)
  return {
    matching: sql`p.field = ${sql.raw(`'${fieldId}'`)} AND ${and(exact.length > 0 ? or(...exact) : undefined, columnConditions(sql`p.value`, definition, conditions)) ?? sql`true`}`,
    mayBeCut: TEXT_ROLLUP_FIELDS.includes(fieldId) ? cutRows([fieldId]) : undefined,
  }
}

/**
 * The one event field whose rows count the matching events of each error exactly (the filters'
 * only event field, and not the free-text search, whose three texts may all hold a value in one event).
 */
export function countingField(compiled: CompiledFilters): string | undefined {
  if (compiled.eventFields.length !== 1) return undefined
  const fieldId = compiled.eventFields[0]!
  return fieldId === SEARCH_FIELD_ID ? undefined : fieldId
}

/**
 * The errors of a project that match: error conditions on the row, and for event and time
 * conditions "at least one of its events matches them all". Cheapest exact form first:
 * errors.last_seen/first_seen for time alone; for one event field, its rollup rows (pivot_counts,
 * last and first seen for a time bound); otherwise an EXISTS over the error's events. (Narrowing
 * that EXISTS to the errors with a matching row in every field was measured: where values are
 * spread over errors it keeps nearly all of them, and its row estimates turned the events scan
 * into 48,000 index probes, 1.1 s instead of 0.23 s at 1,000,000 events on PostgreSQL.)
 */
export function errorsWhere(projectId: string, filters: Filters, compiled: CompiledFilters): SQL | undefined {
  // Errors merged into another are in no list (docs/errors-workflow.md#merging).
  const parts: (SQL | undefined)[] = [compiled.error, sql`${errors.mergedIntoId} IS NULL`]
  const { since, before } = compiled
  if (compiled.event === undefined && !(since && before)) {
    if (since) parts.push(sql`${errors.lastSeen} >= ${since.toISOString()}::timestamptz`)
    if (before) parts.push(sql`${errors.firstSeen} < ${before.toISOString()}::timestamptz`)
    // An error whose events were all deleted keeps its times (events.service.ts) but has no event to match.
    if (since || before) parts.push(sql`${errors.eventsCount} > 0`)
    return and(...parts)
  }
  // One IN, which the planner joins (an IN under an OR is a subplan: hashed when its rows fit in
  // work_mem, and otherwise run again for each error). Matching and cut rows as a UNION ALL, each
  // through its own index (OR-ed in one scan, they read every row of the field: 650 ms, not 13 ms).
  const rowsWhere = (condition: SQL | undefined) =>
    sql`SELECT p.error_id FROM pivot_counts p WHERE p.project_id = ${projectId} AND p.error_id <> '' AND ${condition ?? sql`true`}`
  const seen = and(
    since ? sql`p.last_seen >= ${since.toISOString()}::timestamptz` : undefined,
    before ? sql`p.first_seen < ${before.toISOString()}::timestamptz` : undefined,
  )
  const eventsMatch = sql`EXISTS (SELECT 1 FROM ${events} WHERE ${events.errorId} = ${errors.id}
    AND ${and(compiled.event, eventTimeConditions(compiled)) ?? sql`true`})`
  const [fieldId, ...others] = compiled.eventFields
  const only = fieldId !== undefined && others.length === 0 ? fieldRows(fieldId, filters[fieldId]!) : undefined
  if (only && !(since && before)) {
    // One field and at most one time bound: a row that matches and was seen in the window answers
    // exactly, unless the error has a cut row (which may match): then its events decide.
    const cut = only.mayBeCut
    parts.push(sql`${errors.id} IN (${rowsWhere(and(only.matching, seen))}${cut ? sql` UNION ALL ${rowsWhere(and(cut, seen))}` : sql``})`)
    if (cut) {
      parts.push(or(sql`NOT EXISTS (SELECT 1 FROM pivot_counts p WHERE p.project_id = ${projectId} AND p.error_id = ${errors.id} AND ${cut})`, eventsMatch))
    }
    return and(...parts)
  }
  parts.push(eventsMatch)
  return and(...parts)
}
