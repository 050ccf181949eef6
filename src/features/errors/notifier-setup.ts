import type { ProjectType } from '../../../contract/projects.ts'

/** The notifier libraries the "send your first error" state has a setup for. */
export const NOTIFIER_PLATFORMS = [
  'javascript',
  'electron',
  'expo',
  'react_native',
  'android',
  'cocoa',
  'unity',
  'java',
  'python',
  'django',
  'ruby',
  'go',
  'php',
  'dotnet',
] as const
export type NotifierPlatform = (typeof NOTIFIER_PLATFORMS)[number]

export const PLATFORM_NAMES: Record<NotifierPlatform, string> = {
  javascript: 'JavaScript (browser, Node.js)',
  electron: 'Electron',
  expo: 'Expo',
  react_native: 'React Native',
  android: 'Android',
  cocoa: 'iOS, macOS, tvOS',
  unity: 'Unity',
  java: 'Java',
  python: 'Python',
  django: 'Django',
  ruby: 'Ruby, Rails, Sinatra',
  go: 'Go',
  php: 'PHP',
  dotnet: '.NET',
}

const PLATFORM_OF_TYPE: Partial<Record<ProjectType, NotifierPlatform>> = {
  electron: 'electron',
  expo: 'expo',
  react_native: 'react_native',
  android: 'android',
  ios: 'cocoa',
  macos: 'cocoa',
  cocoa: 'cocoa',
  unity: 'unity',
  java: 'java',
  python: 'python',
  django: 'django',
  rails: 'ruby',
  sinatra: 'ruby',
  ruby: 'ruby',
  go: 'go',
  php: 'php',
  dotnet: 'dotnet',
}

/** The notifier a project of this type most likely uses; JavaScript for web types and anything else. */
export function platformForProjectType(type: string): NotifierPlatform {
  return PLATFORM_OF_TYPE[type as ProjectType] ?? 'javascript'
}

export interface NotifierSetup {
  /** How to add the library, as one line to run or to put in a build file. */
  install: string
  /** Where the code goes. */
  where: string
  code: string
}

// String literals of each language. API keys are hex and origins have no quotes, but the
// snippet must stay valid code whatever it is given.
const singleQuoted = (value: string) => `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
const doubleQuoted = (value: string) => JSON.stringify(value)
const kotlinString = (value: string) => doubleQuoted(value).replaceAll('$', '\\$')

/**
 * The code that points a Bugsnag notifier at this Errata server: the project's API key and the
 * notify and sessions endpoints, in the library's own configuration API (checked against each
 * library's source; docs/dashboard.md lists the versions).
 */
export function notifierSetup(platform: NotifierPlatform, apiKey: string, origin: string): NotifierSetup {
  const notify = `${origin}/notify`
  const sessions = `${origin}/sessions`
  const jsStart = (pkg: string, extra: string[] = []) =>
    [
      `import Bugsnag from '${pkg}'`,
      '',
      'Bugsnag.start({',
      `  apiKey: ${singleQuoted(apiKey)},`,
      '  endpoints: {',
      `    notify: ${singleQuoted(notify)},`,
      `    sessions: ${singleQuoted(sessions)},`,
      '  },',
      ...extra,
      '})',
    ].join('\n')
  const android = [
    'val config = Configuration(' + kotlinString(apiKey) + ')',
    `config.endpoints = EndpointConfiguration(${kotlinString(notify)}, ${kotlinString(sessions)})`,
    'Bugsnag.start(this, config)',
  ].join('\n')
  const cocoa = [
    `let config = BugsnagConfiguration(${doubleQuoted(apiKey)})`,
    `config.endpoints = BugsnagEndpointConfiguration(notify: ${doubleQuoted(notify)}, sessions: ${doubleQuoted(sessions)})`,
    'Bugsnag.start(with: config)',
  ].join('\n')

  switch (platform) {
    case 'javascript':
      return {
        install: 'npm install @bugsnag/js',
        where: 'Where your app starts:',
        code: `${jsStart('@bugsnag/js')}\n\nBugsnag.notify(new Error('Test error from Errata setup'))`,
      }
    case 'electron':
      return { install: 'npm install @bugsnag/electron', where: 'In the main process:', code: jsStart('@bugsnag/electron') }
    case 'expo':
      return { install: 'npx expo install @bugsnag/expo', where: 'Where your app starts:', code: jsStart('@bugsnag/expo') }
    case 'react_native':
      return {
        install: 'npm install @bugsnag/react-native',
        where: 'Endpoints are set in the native layer; JavaScript then starts with Bugsnag.start():',
        code: [
          '// android: MainApplication.onCreate (import com.bugsnag.android.*)',
          android,
          '',
          '// ios: AppDelegate, application(_:didFinishLaunchingWithOptions:) (import Bugsnag)',
          cocoa,
          '',
          '// index.js',
          "import Bugsnag from '@bugsnag/react-native'",
          'Bugsnag.start()',
        ].join('\n'),
      }
    case 'android':
      return {
        install: 'implementation("com.bugsnag:bugsnag-android:6.+")',
        where: 'In Application.onCreate (import com.bugsnag.android.*):',
        code: android,
      }
    case 'cocoa':
      return {
        install: "pod 'Bugsnag' (or the Swift package github.com/bugsnag/bugsnag-cocoa)",
        where: 'Before the app finishes launching (import Bugsnag):',
        code: cocoa,
      }
    case 'unity':
      return {
        install: 'The Bugsnag Unity package, with "Start Automatically" turned off',
        where: 'In your first scene (using BugsnagUnity;):',
        code: [
          `var config = new Configuration(${doubleQuoted(apiKey)});`,
          `config.Endpoints = new EndpointConfiguration(${doubleQuoted(notify)}, ${doubleQuoted(sessions)});`,
          'Bugsnag.Start(config);',
        ].join('\n'),
      }
    case 'java':
      return {
        install: 'implementation("com.bugsnag:bugsnag:3.+")',
        where: 'Where your app starts:',
        code: [
          `Bugsnag bugsnag = new Bugsnag(${doubleQuoted(apiKey)});`,
          `bugsnag.setEndpoints(${doubleQuoted(notify)}, ${doubleQuoted(sessions)});`,
          'bugsnag.notify(new RuntimeException("Test error from Errata setup"));',
        ].join('\n'),
      }
    case 'python':
      return {
        install: 'pip install bugsnag',
        where: 'Where your app starts:',
        code: [
          'import bugsnag',
          '',
          'bugsnag.configure(',
          `    api_key=${doubleQuoted(apiKey)},`,
          `    endpoint=${doubleQuoted(notify)},`,
          `    session_endpoint=${doubleQuoted(sessions)},`,
          ')',
          'bugsnag.notify(Exception("Test error from Errata setup"))',
        ].join('\n'),
      }
    case 'django':
      return {
        install: 'pip install bugsnag',
        where: 'In settings.py:',
        code: [
          'BUGSNAG = {',
          `    "api_key": ${doubleQuoted(apiKey)},`,
          `    "endpoint": ${doubleQuoted(notify)},`,
          `    "session_endpoint": ${doubleQuoted(sessions)},`,
          '}',
          'MIDDLEWARE = ["bugsnag.django.middleware.BugsnagMiddleware", *MIDDLEWARE]',
        ].join('\n'),
      }
    case 'ruby':
      return {
        install: 'bundle add bugsnag',
        where: 'In config/initializers/bugsnag.rb (Rails), or before your app starts:',
        code: [
          'Bugsnag.configure do |config|',
          `  config.api_key = ${doubleQuoted(apiKey)}`,
          `  config.endpoints = Bugsnag::EndpointConfiguration.new(${doubleQuoted(notify)}, ${doubleQuoted(sessions)})`,
          'end',
        ].join('\n'),
      }
    case 'go':
      return {
        install: 'go get github.com/bugsnag/bugsnag-go/v2',
        where: 'At the start of main() (import "github.com/bugsnag/bugsnag-go/v2"):',
        code: [
          'bugsnag.Configure(bugsnag.Configuration{',
          `\tAPIKey: ${doubleQuoted(apiKey)},`,
          '\tEndpoints: bugsnag.Endpoints{',
          `\t\tNotify:   ${doubleQuoted(notify)},`,
          `\t\tSessions: ${doubleQuoted(sessions)},`,
          '\t},',
          '})',
        ].join('\n'),
      }
    case 'php':
      return {
        install: 'composer require bugsnag/bugsnag',
        where: 'Where your app starts:',
        code: [
          `$bugsnag = Bugsnag\\Client::make(${singleQuoted(apiKey)}, ${singleQuoted(notify)});`,
          `$bugsnag->setSessionEndpoint(${singleQuoted(sessions)});`,
          'Bugsnag\\Handler::register($bugsnag);',
        ].join('\n'),
      }
    case 'dotnet':
      return {
        install: 'dotnet add package Bugsnag',
        where: 'Where your app starts:',
        code: [
          `var config = new Bugsnag.Configuration(${doubleQuoted(apiKey)})`,
          '{',
          `    Endpoint = new Uri(${doubleQuoted(notify)}),`,
          `    SessionEndpoint = new Uri(${doubleQuoted(sessions)}),`,
          '};',
          'var bugsnag = new Bugsnag.Client(config);',
        ].join('\n'),
      }
  }
}
