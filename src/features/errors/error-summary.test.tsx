import { render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { errorGroup } from '../../test/fixtures.ts'
import { ErrorSummary } from './error-summary.tsx'

/** The chips under a label of the summary ("App versions"), in the order shown. */
const chipsOf = (label: string) => {
  const term = screen.getByText(label, { selector: 'dt' })
  return within(term.nextElementSibling as HTMLElement)
    .queryAllByText(/./)
    .map((chip) => chip.textContent)
}

describe('error summary', () => {
  it('lists app versions by version, newest last, whatever order they arrived in', () => {
    render(<ErrorSummary error={errorGroup({ app_versions: ['1.0.0', '2.0.0', '1.10.0', '1.2.0', '1.1.0'] })} />)
    expect(chipsOf('App versions')).toEqual(['1.0.0', '1.1.0', '1.2.0', '1.10.0', '2.0.0'])
  })

  it('shortens a very long error class in the heading, with a button to read it whole', async () => {
    const errorClass = `Unbroken${'Abc'.repeat(1664)}`
    render(<ErrorSummary error={errorGroup({ error_class: errorClass })} />)
    const heading = screen.getByRole('heading', { level: 1 })
    expect(heading.textContent).toBe(`${errorClass.slice(0, 200)}…`)
    // The button is beside the heading, not part of its name.
    const showAll = screen.getByRole('button', { name: 'Show all 5,000 characters of the error class' })
    expect(heading).not.toContainElement(showAll)
    await userEvent.click(showAll)
    expect(heading).toHaveTextContent(errorClass, { normalizeWhitespace: false })
    expect(screen.getByRole('button', { name: 'Show less of the error class' })).toHaveAttribute('aria-expanded', 'true')
  })

  it('leaves a class of ordinary length whole, with no button', () => {
    render(<ErrorSummary error={errorGroup({ error_class: 'org.springframework.beans.factory.BeanCreationException' })} />)
    expect(screen.getByRole('heading', { level: 1, name: 'org.springframework.beans.factory.BeanCreationException' })).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: /Show all/ })).not.toBeInTheDocument()
  })

  it('shortens a very long context too, so the page keeps its shape', () => {
    const context = `GET /${'c'.repeat(4000)}`
    render(<ErrorSummary error={errorGroup({ context })} />)
    expect(screen.getByText(`${context.slice(0, 200)}…`)).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Show all 4,005 characters' })).toBeInTheDocument()
  })
})
