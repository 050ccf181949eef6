import { render, screen, within } from '@testing-library/react'
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
})
