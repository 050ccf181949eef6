import { act, render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { useState } from 'react'
import { describe, expect, it } from 'vitest'
import { Dialog } from './dialog.tsx'

/** A row with a Withdraw button whose dialog removes the row, as the collaborators page does. */
function Page() {
  const [row, setRow] = useState(true)
  const [open, setOpen] = useState(false)
  return (
    <main id="main" tabIndex={-1}>
      {row ? <button onClick={() => setOpen(true)}>Withdraw</button> : <p>No invitations</p>}
      <button>Elsewhere</button>
      <Dialog open={open} onClose={() => setOpen(false)} title="Withdraw the invitation?">
        <button
          onClick={() => {
            // The row goes in the same update that closes the dialog.
            setRow(false)
            setOpen(false)
          }}
        >
          Withdraw invitation
        </button>
        <button onClick={() => setOpen(false)}>Cancel</button>
      </Dialog>
    </main>
  )
}

describe('Dialog focus on close', () => {
  it('gives focus back to the control that opened it', async () => {
    render(<Page />)
    await userEvent.click(screen.getByRole('button', { name: 'Withdraw' }))
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }))
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Withdraw' }))
  })

  it('moves focus to the main landmark when that control went with the dialog', async () => {
    render(<Page />)
    await userEvent.click(screen.getByRole('button', { name: 'Withdraw' }))
    await userEvent.click(screen.getByRole('button', { name: 'Withdraw invitation' }))
    await act(() => Promise.resolve())
    expect(screen.queryByRole('button', { name: 'Withdraw' })).not.toBeInTheDocument()
    expect(document.activeElement).toBe(screen.getByRole('main'))
  })
})
