// The legacy errors list's `app_versions` parameter: conditions of an operator prefix then a
// version (`gte2.10.0`), comma-separated, compared as versions (contract/versions.ts), not as text.
import { compareVersions } from '../../contract/versions.ts'
import { ValidationError } from '../failures.ts'

export type VersionOperator = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte'

export interface VersionCondition {
  operator: VersionOperator
  version: string
}

// Longest first, so `gte` is not read as `gt` then `e…`.
const OPERATORS: readonly VersionOperator[] = ['gte', 'lte', 'eq', 'ne', 'gt', 'lt']

/** `gte2.10.0,lt3` → its conditions; 400 naming app_versions for a condition without operator or version. */
export function parseAppVersions(text: string): VersionCondition[] {
  const parts = text.split(',').map((part) => part.trim()).filter(Boolean)
  if (parts.length === 0) throw new ValidationError('app_versions: give an operator (eq, ne, gt, gte, lt, lte) then a version, e.g. gte2.10.0')
  return parts.map((part) => {
    const operator = OPERATORS.find((op) => part.startsWith(op))
    const version = operator ? part.slice(operator.length).trim() : ''
    if (!operator || version === '') {
      throw new ValidationError(`app_versions: "${part}" must be an operator (eq, ne, gt, gte, lt, lte) then a version, e.g. gte2.10.0`)
    }
    return { operator, version }
  })
}

function holds({ operator, version }: VersionCondition, candidate: string): boolean {
  const order = compareVersions(candidate, version)
  switch (operator) {
    case 'eq':
      return order === 0
    case 'ne':
      return order !== 0
    case 'gt':
      return order > 0
    case 'gte':
      return order >= 0
    case 'lt':
      return order < 0
    case 'lte':
      return order <= 0
  }
}

/**
 * Whether a version meets the conditions: any one of the `eq` ones (a list of versions), and
 * every other one (a range: `gte2.0.0,lt3.0.0`).
 */
export function versionMatches(conditions: readonly VersionCondition[], candidate: string): boolean {
  const equals = conditions.filter((c) => c.operator === 'eq')
  return (equals.length === 0 || equals.some((c) => holds(c, candidate))) && conditions.every((c) => c.operator === 'eq' || holds(c, candidate))
}
