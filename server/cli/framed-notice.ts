/**
 * Lines in a frame, so that what an operator must copy (a generated password) stands out among
 * the lines a start prints. ASCII only: it reaches terminals and log collectors alike.
 */
export function framedNotice(lines: readonly string[]): string {
  const width = Math.max(...lines.map((line) => line.length))
  const rule = `+${'-'.repeat(width + 4)}+`
  return [rule, ...lines.map((line) => `|  ${line.padEnd(width)}  |`), rule].join('\n') + '\n'
}
