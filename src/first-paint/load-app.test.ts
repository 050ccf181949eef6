import { afterEach, describe, expect, it } from 'vitest'
import { loadApp } from './load-app.ts'

// index.html's early script tag as the build writes it (vite.config.ts), with the route's files the server adds.
function earlyScript(attributes: Record<string, string>): HTMLScriptElement {
  const script = document.createElement('script')
  for (const [name, value] of Object.entries(attributes)) script.setAttribute(name, value)
  return script
}

const preloads = () =>
  [...document.head.querySelectorAll('link')].map((link) => `${link.rel} ${link.getAttribute('href')} ${link.getAttribute('fetchpriority') ?? 'auto'}`)
const moduleScripts = () => [...document.querySelectorAll('script[type="module"]')].map((script) => script.getAttribute('src'))

describe('the app’s files, asked for by the early script', () => {
  afterEach(() => {
    document.head.innerHTML = ''
    document.body.innerHTML = ''
  })

  it('are the entry and its files, then the route’s at low priority, and the entry runs once', () => {
    loadApp(
      earlyScript({
        'data-app-entry': '/assets/index-e1.js',
        'data-app-preloads': '/assets/react-r1.js /assets/app-shared-s1.js',
        'data-route-preloads': '/assets/route-l1.js /assets/route-c1.css',
      }),
    )
    expect(preloads()).toEqual([
      'modulepreload /assets/index-e1.js auto',
      'modulepreload /assets/react-r1.js auto',
      'modulepreload /assets/app-shared-s1.js auto',
      'modulepreload /assets/route-l1.js low',
      'preload /assets/route-c1.css low',
    ])
    // The same request as the preload's (CORS, anonymous), so the module is fetched once.
    for (const element of document.querySelectorAll('link, script')) expect(element.getAttribute('crossorigin')).toBe('')
    expect(moduleScripts()).toEqual(['/assets/index-e1.js'])
  })

  it('ask for nothing when the page names no entry (the dev server’s page loads the app itself)', () => {
    loadApp(earlyScript({}))
    loadApp(null)
    expect(preloads()).toEqual([])
    expect(moduleScripts()).toEqual([])
  })
})
