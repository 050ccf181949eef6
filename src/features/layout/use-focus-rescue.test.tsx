import { act, render, screen } from '@testing-library/react'
import { useState } from 'react'
import { describe, expect, it } from 'vitest'
import { useFocusRescue } from './use-focus-rescue.ts'

function Page() {
  useFocusRescue('main')
  const [shown, setShown] = useState(true)
  return (
    <main id="main" tabIndex={-1}>
      {shown ? <button onClick={() => setShown(false)}>Dismiss</button> : null}
      <p>Some text</p>
    </main>
  )
}

describe('useFocusRescue', () => {
  it('moves focus to the main landmark when the focused control is removed', async () => {
    render(<Page />)
    const button = screen.getByRole('button', { name: 'Dismiss' })
    button.focus()
    await act(async () => button.click())
    expect(screen.queryByRole('button')).not.toBeInTheDocument()
    await act(() => Promise.resolve())
    expect(document.activeElement).toBe(screen.getByRole('main'))
  })

  it('moves focus to the main landmark when the browser fires focusout while removing the control (Chromium)', async () => {
    render(<Page />)
    const button = screen.getByRole('button', { name: 'Dismiss' })
    const parent = button.parentNode!
    const removeChild = parent.removeChild.bind(parent)
    // As Chromium does: blur the control during its removal, while it is still in the document.
    parent.removeChild = <T extends Node>(child: T): T => {
      if ((child as Node) === document.activeElement) child.dispatchEvent(new FocusEvent('focusout', { bubbles: true, relatedTarget: null }))
      return removeChild(child)
    }
    button.focus()
    await act(async () => button.click())
    await act(() => Promise.resolve())
    expect(document.activeElement).toBe(screen.getByRole('main'))
  })

  it('leaves focus alone when the user had moved it away before the control went', async () => {
    render(<Page />)
    const button = screen.getByRole('button', { name: 'Dismiss' })
    button.focus()
    // A click on plain text: focus goes to <body>, the button stays.
    button.blur()
    expect(document.activeElement).toBe(document.body)
    // The removal comes later, as a separate task.
    await act(() => new Promise((resolve) => setTimeout(resolve, 0)))
    await act(async () => button.click())
    await act(() => Promise.resolve())
    expect(document.activeElement).toBe(document.body)
  })
})
