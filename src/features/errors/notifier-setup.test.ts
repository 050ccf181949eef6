import { describe, expect, it } from 'vitest'
import { NOTIFIER_PLATFORMS, notifierSetup, platformForProjectType } from './notifier-setup.ts'

const KEY = '0123456789abcdef0123456789abcdef'
const ORIGIN = 'https://errata.example.com'

describe('notifierSetup', () => {
  it.each(NOTIFIER_PLATFORMS)('%s: the API key and both endpoints, in the library\'s configuration', (platform) => {
    const { install, where, code } = notifierSetup(platform, KEY, ORIGIN)
    expect(install).not.toBe('')
    expect(where).not.toBe('')
    expect(code).toContain(KEY)
    expect(code).toContain(`${ORIGIN}/notify`)
    expect(code).toContain(`${ORIGIN}/sessions`)
    // The notify endpoint comes before the sessions one in every library's API.
    expect(code.indexOf(`${ORIGIN}/notify`)).toBeLessThan(code.indexOf(`${ORIGIN}/sessions`))
  })

  it('writes each library\'s own API', () => {
    expect(notifierSetup('javascript', KEY, ORIGIN).code).toContain("notify: 'https://errata.example.com/notify'")
    expect(notifierSetup('android', KEY, ORIGIN).code).toContain(
      'config.endpoints = EndpointConfiguration("https://errata.example.com/notify", "https://errata.example.com/sessions")',
    )
    expect(notifierSetup('cocoa', KEY, ORIGIN).code).toContain('Bugsnag.start(with: config)')
    expect(notifierSetup('python', KEY, ORIGIN).code).toContain('session_endpoint="https://errata.example.com/sessions"')
    expect(notifierSetup('ruby', KEY, ORIGIN).code).toContain('Bugsnag::EndpointConfiguration.new(')
    expect(notifierSetup('go', KEY, ORIGIN).code).toContain('Sessions: "https://errata.example.com/sessions"')
    expect(notifierSetup('php', KEY, ORIGIN).code).toContain("$bugsnag->setSessionEndpoint('https://errata.example.com/sessions');")
    expect(notifierSetup('dotnet', KEY, ORIGIN).code).toContain('SessionEndpoint = new Uri("https://errata.example.com/sessions")')
    // React Native takes its endpoints in the native layer only.
    const reactNative = notifierSetup('react_native', KEY, ORIGIN).code
    expect(reactNative).toContain('EndpointConfiguration(')
    expect(reactNative).toContain('BugsnagEndpointConfiguration(')
    expect(reactNative).toContain('Bugsnag.start()')
  })

  it('keeps string literals valid whatever it is given', () => {
    expect(notifierSetup('javascript', "a'b", 'http://x').code).toContain("apiKey: 'a\\'b'")
    expect(notifierSetup('python', 'a"b', 'http://x').code).toContain('api_key="a\\"b"')
    expect(notifierSetup('android', 'a$b', 'http://x').code).toContain('Configuration("a\\$b")')
    expect(notifierSetup('php', "a'b", 'http://x').code).toContain("Client::make('a\\'b'")
  })

  it('picks the notifier from the project type', () => {
    expect(platformForProjectType('ios')).toBe('cocoa')
    expect(platformForProjectType('macos')).toBe('cocoa')
    expect(platformForProjectType('rails')).toBe('ruby')
    expect(platformForProjectType('android')).toBe('android')
    expect(platformForProjectType('node')).toBe('javascript')
    expect(platformForProjectType('vue')).toBe('javascript')
    expect(platformForProjectType('other')).toBe('javascript')
    expect(platformForProjectType('something-new')).toBe('javascript')
  })
})
