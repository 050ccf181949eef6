// Constants the pivot routes' loaders need, apart from the pivot components so that they stay
// out of the first page's bundle.
import type { PivotFieldId } from '../../../contract/filters.ts'

/** The fields an error page pivots on, in tab order. */
export const ERROR_PIVOT_FIELDS = [
  'app.release_stage',
  'app.version',
  'user.id',
  'device.os_name',
  'device.browser_name',
  'context',
] as const satisfies readonly PivotFieldId[]
export type ErrorPivotField = (typeof ERROR_PIVOT_FIELDS)[number]

/** Values per page of a pivot's values page. */
export const PIVOT_PAGE_SIZE = 50
