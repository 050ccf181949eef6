// Where "back to the errors list" leads from an error's pages (the breadcrumb): the list the error
// was opened from, as far as that is known. The row link carries only the list's event filters
// (they apply to the error's events); the list's sort and error filters (status, assignee…) are
// remembered per project for this tab, in session storage, like the row last focused in a list.
import { z } from 'zod/mini'
import { directionSchema, type Direction } from '../../../contract/common.ts'
import { errorSortSchema, type ErrorSort } from '../../../contract/errors.ts'
import type { Filters } from '../../../contract/filters.ts'
import { DEFAULT_FILTERS, eventScopedFilters, filterSearchSchema, fromFilterSearch, isDefaultFilters, toFilterSearch } from '../filters/to-filter-search.ts'

/** The errors list's search, without its defaults (last seen, newest first, open errors). */
export interface ErrorsListSearch {
  sort?: ErrorSort
  direction?: Direction
  f?: string[]
}

const storedSchema = z.object({
  sort: z.optional(errorSortSchema),
  direction: z.optional(directionSchema),
  f: filterSearchSchema,
})

const storageKey = (projectId: string) => `errata.errors-list:${projectId}`

/** The list's search as its links write it: defaults left out, so the default view stays a bare link. */
export function toErrorsListSearch({ sort, direction, filters }: { sort: ErrorSort; direction: Direction; filters: Filters }): ErrorsListSearch {
  const f = toFilterSearch(filters)
  return {
    sort: sort === 'last_seen' ? undefined : sort,
    direction: direction === 'desc' ? undefined : direction,
    f: isDefaultFilters(filters) ? undefined : f,
  }
}

/** Remembers the project's errors list as shown, for the way back from its errors. */
export function rememberErrorsList(projectId: string, search: ErrorsListSearch): void {
  window.sessionStorage.setItem(storageKey(projectId), JSON.stringify(search))
}

function rememberedErrorsList(projectId: string): ErrorsListSearch | null {
  try {
    const parsed = storedSchema.safeParse(JSON.parse(window.sessionStorage.getItem(storageKey(projectId)) ?? 'null'))
    return parsed.success ? parsed.data : null
  } catch {
    return null
  }
}

const sameFilters = (a: Filters, b: Filters) =>
  JSON.stringify(toFilterSearch(a).sort()) === JSON.stringify(toFilterSearch(b).sort())

/**
 * The errors list to go back to from an error's page showing `filters` (its `f`): the list last
 * shown in this tab when it had the same event filters (so its sort and status come back too),
 * else the default view (open errors) narrowed by the page's event filters.
 */
export function errorsListSearchFor(projectId: string, filters: Filters): ErrorsListSearch {
  const events = eventScopedFilters(filters)
  const remembered = rememberedErrorsList(projectId)
  if (remembered && sameFilters(eventScopedFilters(fromFilterSearch(remembered.f)), events)) return remembered
  return Object.keys(events).length === 0 ? {} : { f: toFilterSearch({ ...DEFAULT_FILTERS, ...events }) }
}
