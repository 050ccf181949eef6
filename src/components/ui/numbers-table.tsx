import type { ReactNode } from 'react'
import { cn } from '../../lib/cn.ts'

export interface NumbersColumn<Row> {
  /** The column's heading; `hidden` keeps it for screen readers only (a column of buttons). */
  header: string
  hidden?: boolean
  cell: (row: Row, index: number) => ReactNode
  /** Counts line up on the right, in the text colour; the first column (a time) reads on the left. */
  numeric?: boolean
  /** A column of buttons: less vertical padding, so its rows stay as tall as the others. */
  controls?: boolean
}

/**
 * "Show the numbers" under a chart: the chart's text alternative, a table of every point behind a
 * disclosure, scrolling within itself past 16rem, its header kept in view.
 */
export function NumbersDisclosure<Row>({
  caption,
  columns,
  rows,
  rowKey,
}: {
  /** What the table holds, for screen readers (the chart's label). */
  caption: string
  columns: readonly NumbersColumn<Row>[]
  rows: readonly Row[]
  rowKey: (row: Row) => string | number
}) {
  const align = (column: NumbersColumn<Row>) => (column.numeric || column.controls ? 'text-right' : undefined)
  return (
    <details className="text-xs text-muted-foreground">
      <summary className="w-fit cursor-pointer rounded hover:text-foreground">Show the numbers</summary>
      <div className="mt-2 max-h-64 overflow-auto rounded-md border border-border">
        <table className="w-full text-left text-xs">
          <caption className="sr-only">{caption}</caption>
          <thead className="sticky top-0 bg-surface-muted">
            <tr>
              {columns.map((column) => (
                <th key={column.header} scope="col" className={cn('px-2 py-1 font-medium', align(column))}>
                  {column.hidden ? <span className="sr-only">{column.header}</span> : column.header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => (
              <tr key={rowKey(row)} className="border-t border-border">
                {columns.map((column) => (
                  <td
                    key={column.header}
                    className={cn('px-2', column.controls ? 'py-0.5' : 'py-1', align(column), column.numeric && 'text-foreground tabular-nums')}
                  >
                    {column.cell(row, index)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  )
}
