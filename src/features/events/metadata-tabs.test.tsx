import { render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it, vi } from 'vitest'
import { MetadataTabs } from './metadata-tabs.tsx'

const manySections = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`tab${i}`, { i }]))

describe('MetadataTabs', () => {
  it('draws the first 20 of 50 000 sections, more on request', async () => {
    render(<MetadataTabs metadata={manySections} selected={undefined} onSelect={vi.fn()} />)
    const tablist = screen.getByRole('tablist', { name: 'Metadata sections' })
    expect(within(tablist).getAllByRole('tab')).toHaveLength(20)
    expect(within(tablist).getByRole('tab', { name: 'tab0' })).toHaveAttribute('aria-selected', 'true')

    const more = screen.getByRole('button', { name: 'Show 100 more of 49,980 sections' })
    more.focus()
    await userEvent.keyboard('{Enter}')
    expect(within(tablist).getAllByRole('tab')).toHaveLength(120)
    expect(screen.getByRole('button', { name: 'Show 100 more of 49,880 sections' })).toHaveFocus()
  })

  it('keeps a selected section from further down the list in the row', () => {
    render(<MetadataTabs metadata={manySections} selected="tab31337" onSelect={vi.fn()} />)
    const tablist = screen.getByRole('tablist', { name: 'Metadata sections' })
    expect(within(tablist).getAllByRole('tab')).toHaveLength(21)
    expect(within(tablist).getByRole('tab', { name: 'tab31337' })).toHaveAttribute('aria-selected', 'true')
    expect(within(screen.getByRole('tabpanel')).getByText('31337')).toBeInTheDocument()
  })

  it('cuts a long section name with an ellipsis, whole on hover, and keeps the tabs on the arrow keys', async () => {
    const long = `section_${'x'.repeat(1000)}`
    const onSelect = vi.fn()
    render(<MetadataTabs metadata={{ app: { a: 1 }, [long]: { b: 2 }, device: { c: 3 } }} selected="app" onSelect={onSelect} />)
    const tab = screen.getByRole('tab', { name: long })
    expect(tab).toHaveAttribute('title', long)
    expect(tab).toHaveClass('truncate')
    screen.getByRole('tab', { name: 'app' }).focus()
    await userEvent.keyboard('{ArrowRight}')
    expect(onSelect).toHaveBeenLastCalledWith(long)
    expect(tab).toHaveFocus()
  })
})
