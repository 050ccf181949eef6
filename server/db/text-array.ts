/** A PostgreSQL text[] literal, sent as ONE parameter; drizzle would expand a JS array into a row of parameters. */
export function textArrayLiteral(values: Iterable<string>): string {
  const items = [...values].map((v) => `"${v.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`)
  return `{${items.join(',')}}`
}
