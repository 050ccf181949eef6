import { describe, expect, it } from 'vitest'
import type { EventException } from '../../../contract/events.ts'
import { toStackTraceText } from './to-stack-trace-text.ts'

const frame = (method: string | null, file: string | null, line: number | null, column: number | null) => ({
  method,
  file,
  line,
  column,
  in_project: true,
  code: null,
})

describe('toStackTraceText', () => {
  it('prints each exception, outermost first, with its frames and causes', () => {
    const exceptions: EventException[] = [
      { class: 'TypeError', message: 'x is undefined', type: 'browserjs', stacktrace: [frame('run', 'src/app.js', 3, 7), frame(null, 'src/main.js', 10, null)] },
      { class: 'Error', message: '', type: null, stacktrace: [frame('load', null, null, null)] },
    ]
    expect(toStackTraceText(exceptions)).toBe(
      ['TypeError: x is undefined', '    at run (src/app.js:3:7)', '    at src/main.js:10', 'Caused by: Error', '    at load ((unknown file))'].join('\n'),
    )
  })
})
