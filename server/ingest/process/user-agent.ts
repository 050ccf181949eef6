/**
 * A minimal User-Agent reader: browser name and version, and OS name. Enough for the
 * browser and OS columns (filters and pivots); not a full UA database. Order matters:
 * Edge and Opera also say "Chrome", Chrome also says "Safari".
 */
const BROWSERS: ReadonlyArray<[name: string, pattern: RegExp]> = [
  ['Edge', /\bEdg(?:e|A|iOS)?\/([\d.]+)/],
  ['Opera', /\b(?:OPR|Opera)\/([\d.]+)/],
  ['Samsung Internet', /\bSamsungBrowser\/([\d.]+)/],
  ['Firefox', /\b(?:Firefox|FxiOS)\/([\d.]+)/],
  ['Chrome', /\b(?:Chrome|CriOS|HeadlessChrome)\/([\d.]+)/],
  ['Safari', /\bVersion\/([\d.]+).*\bSafari\//],
  ['Internet Explorer', /(?:\bMSIE ([\d.]+)|\bTrident\/.*\brv:([\d.]+))/],
  ['jsdom', /\bjsdom\/([\d.]+)/],
]

const SYSTEMS: ReadonlyArray<[name: string, pattern: RegExp]> = [
  ['Windows', /\bWindows\b/],
  ['iOS', /\b(?:iPhone|iPad|iPod)\b/],
  ['macOS', /\bMac OS X\b|\bMacintosh\b/],
  ['Android', /\bAndroid\b/],
  ['Chrome OS', /\bCrOS\b/],
  ['Linux', /\blinux\b/i],
]

interface ParsedUserAgent {
  browserName: string | null
  browserVersion: string | null
  osName: string | null
}

// Real user agents stay under a few hundred characters. The patterns with `.*` scan the
// rest of the string for each candidate match, so an unbounded one costs quadratic time.
const MAX_USER_AGENT_CHARS = 1024

export function parseUserAgent(fullUserAgent: string): ParsedUserAgent {
  const userAgent = fullUserAgent.slice(0, MAX_USER_AGENT_CHARS)
  let browserName: string | null = null
  let browserVersion: string | null = null
  for (const [name, pattern] of BROWSERS) {
    const match = pattern.exec(userAgent)
    if (match) {
      browserName = name
      browserVersion = match[1] ?? match[2] ?? null
      break
    }
  }
  const os = SYSTEMS.find(([, pattern]) => pattern.test(userAgent))
  return { browserName, browserVersion, osName: os ? os[0] : null }
}
