import { act, render, screen, waitFor } from '@testing-library/react'
import { useState } from 'react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { SHORTCUTS } from '../features/triage/keyboard-shortcuts.ts'

// Module state (the keys taken, the listeners): a fresh copy of both modules per test.
async function load() {
  vi.resetModules()
  const earlyKeys = await import('./early-keys.ts')
  const { keepEarlyKeys } = await import('../first-paint/keep-early-keys.ts')
  const { removeFirstPaintShell } = await import('./first-paint.ts')
  const { useShortcuts } = await import('../features/triage/keyboard-shortcuts.ts')
  /** A page listening for j and x, as the errors list does: j counts rows moved, x the toggles. */
  function Page() {
    const [moved, setMoved] = useState(0)
    const [toggled, setToggled] = useState(0)
    useShortcuts({ j: () => setMoved((n) => n + 1), x: () => setToggled((n) => n + 1) })
    return (
      <p>
        moved {moved}, toggled {toggled}
      </p>
    )
  }
  return { ...earlyKeys, keepEarlyKeys, removeFirstPaintShell, Page }
}

const press = (key: string, init: KeyboardEventInit = {}) =>
  document.body.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...init }))

const stops: (() => void)[] = []

beforeEach(() => {
  document.body.innerHTML = '<div id="first-paint"><div role="list"><a href="/x">row</a></div></div><div id="root"></div>'
})

afterEach(() => {
  for (const stop of stops.splice(0)) stop()
  document.documentElement.removeAttribute('data-early-keys')
})

/** A few tasks: time enough for keys to be played, were they to be. */
const settle = () => act(() => new Promise((resolve) => setTimeout(resolve, 10)))

describe('shortcuts pressed before the app runs', () => {
  it('are the shortcuts’ single-character keys', async () => {
    const { EARLY_KEYS } = await load()
    const keys = SHORTCUTS.map((shortcut) => shortcut.key).filter((key) => key.length === 1)
    expect([...EARLY_KEYS].sort()).toEqual(keys.sort())
  })

  it('are played in order once the shell has gone and a page listens', async () => {
    const { keepEarlyKeys, removeFirstPaintShell, Page } = await load()
    stops.push(keepEarlyKeys())
    press('j')
    press('x')
    press('j')
    expect(document.documentElement.getAttribute('data-early-keys')).toBe('jxj')
    removeFirstPaintShell()
    render(<Page />)
    await waitFor(() => expect(screen.getByText('moved 2, toggled 1')).toBeTruthy())
    await settle()
    expect(screen.getByText('moved 2, toggled 1')).toBeTruthy()
    expect(document.documentElement.hasAttribute('data-early-keys')).toBe(false)
  })

  it('wait for the shell to go when the page listened first', async () => {
    const { keepEarlyKeys, removeFirstPaintShell, Page } = await load()
    stops.push(keepEarlyKeys())
    press('j')
    render(<Page />)
    // The app's page renders unseen under the shell: the key is not played there yet.
    await settle()
    expect(screen.getByText('moved 0, toggled 0')).toBeTruthy()
    act(() => removeFirstPaintShell())
    await waitFor(() => expect(screen.getByText('moved 1, toggled 0')).toBeTruthy())
    await settle()
    expect(screen.getByText('moved 1, toggled 0')).toBeTruthy()
  })

  it('leave out other keys, keys with a modifier, and keys pressed once the shell is gone', async () => {
    const { keepEarlyKeys, removeFirstPaintShell } = await load()
    stops.push(keepEarlyKeys())
    press('q')
    press(' ')
    press('Enter')
    press('j', { ctrlKey: true })
    press('k')
    expect(document.documentElement.getAttribute('data-early-keys')).toBe('k')
    removeFirstPaintShell()
    press('j')
    expect(document.documentElement.hasAttribute('data-early-keys')).toBe(false)
  })

  it('are not kept on the plain shell, where no rows are painted', async () => {
    document.body.innerHTML = '<div id="first-paint"></div><div id="root"></div>'
    const { keepEarlyKeys } = await load()
    stops.push(keepEarlyKeys())
    press('f')
    expect(document.documentElement.hasAttribute('data-early-keys')).toBe(false)
  })

  it('are dropped when the app moves to another page before one listens', async () => {
    const { keepEarlyKeys, removeFirstPaintShell, forgetEarlyKeys, Page } = await load()
    stops.push(keepEarlyKeys())
    press('j')
    removeFirstPaintShell()
    forgetEarlyKeys()
    render(<Page />)
    await settle()
    expect(screen.getByText('moved 0, toggled 0')).toBeTruthy()
  })
})
