/**
 * A value made on its first use, then kept. For the `Intl` formatters of modules the page's early
 * script imports (src/first-paint/): made at once, before its first request is sent, they took
 * about 20 ms there.
 */
export function once<T>(make: () => T): () => T {
  let value: T | undefined
  return () => (value ??= make())
}
