/**
 * A value made on its first use, then kept. For `Intl` formatters: made when their module loads,
 * they took about 20 ms before the first page could render.
 */
export function once<T>(make: () => T): () => T {
  let value: T | undefined
  return () => (value ??= make())
}
