/** The @bugsnag/js setup that sends to this Errata server, for the "send your first error" state. */
export function toNotifierSnippet(apiKey: string, origin: string): string {
  const quote = (value: string) => `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
  return [
    "import Bugsnag from '@bugsnag/js'",
    '',
    'Bugsnag.start({',
    `  apiKey: ${quote(apiKey)},`,
    '  endpoints: {',
    `    notify: ${quote(`${origin}/notify`)},`,
    `    sessions: ${quote(`${origin}/sessions`)},`,
    '  },',
    '})',
    '',
    "Bugsnag.notify(new Error('Test error from Errata setup'))",
  ].join('\n')
}
