// The sampling rule (docs/ingestion.md, "Rate limiting"). Events are numbered in each window (a
// minute, a UTC day) in the order they are indexed, counting every event of the project that
// counts towards the quota, kept or dropped. Event number c of a window with quota Q is kept
// when c <= Q, or when c is a multiple of N = ceil(c / Q): of the second Q events 1 in 2 is
// kept, of the third 1 in 3, and so on, and always the last of each Q. The events stored in a
// window thus grow with the logarithm of those received, about Q × (0.58 + ln m) for m times
// the quota (10 times stores about 3 Q, 100 times about 5.5 Q), and by one per further Q events
// once m passes Q: a flood cannot fill the database, and the stored
// sample still shows how the flood went. An event is kept when every configured window keeps it.

/** Whether event number `ordinal` (1-based) of a window with `quota` is kept. */
export function keptInWindow(ordinal: number, quota: number): boolean {
  if (ordinal <= quota) return true
  const n = Math.ceil(ordinal / quota)
  return ordinal % n === 0
}

/** How many of the events numbered `from + 1` to `to` of a window a quota keeps (tests, docs). */
export function keptBetween(from: number, to: number, quota: number): number {
  let kept = 0
  for (let c = from + 1; c <= to; c++) if (keptInWindow(c, quota)) kept++
  return kept
}
