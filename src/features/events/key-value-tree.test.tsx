import { render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { KeyValueTree } from './key-value-tree.tsx'

describe('KeyValueTree', () => {
  it('draws the first 100 keys of a huge object and more on request, from the keyboard', async () => {
    const huge = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]))
    render(<KeyValueTree value={huge} label="Metadata: tab" />)
    const tree = screen.getByRole('list', { name: 'Metadata: tab' })
    expect(within(tree).getAllByRole('listitem')).toHaveLength(100)
    expect(within(tree).getByText('k99')).toBeInTheDocument()
    expect(within(tree).queryByText('k100')).not.toBeInTheDocument()

    const more = screen.getByRole('button', { name: 'Show 100 more of 99,900 keys' })
    more.focus()
    await userEvent.keyboard('{Enter}')
    expect(within(tree).getAllByRole('listitem')).toHaveLength(200)
    expect(within(tree).getByText('k199')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Show 100 more of 99,800 keys' })).toHaveFocus()
  })

  it('pages a long nested array the same way, the last page by its own size', async () => {
    render(<KeyValueTree value={{ list: Array.from({ length: 150 }, (_, i) => `item ${i}`) }} label="Metadata: tab" />)
    const list = screen.getByRole('button', { name: /list/ }).parentElement!
    expect(within(list).getAllByRole('listitem')).toHaveLength(100)
    await userEvent.click(within(list).getByRole('button', { name: 'Show 50 more items' }))
    expect(within(list).getAllByRole('listitem')).toHaveLength(150)
    expect(within(list).queryByRole('button', { name: /^Show .* more/ })).not.toBeInTheDocument()
  })
})

describe('KeyValueTree leaves', () => {
  it('tells a string from a number, a boolean and null by quotes and style', () => {
    render(
      <KeyValueTree
        value={{ asString: '11', asNumber: 11, asBoolean: true, asStringTrue: 'true', asNull: null, empty: '' }}
        label="Metadata: types"
      />,
    )
    const tree = screen.getByRole('list', { name: 'Metadata: types' })
    const valueOf = (key: string) => within(tree).getByText(key).nextElementSibling!
    expect(valueOf('asString')).toHaveTextContent(/^"11"$/)
    expect(valueOf('asNumber')).toHaveTextContent(/^11$/)
    expect(valueOf('asBoolean')).toHaveTextContent(/^true$/)
    expect(valueOf('asStringTrue')).toHaveTextContent(/^"true"$/)
    expect(valueOf('asNull')).toHaveTextContent(/^null$/)
    expect(valueOf('empty')).toHaveTextContent(/^"" ?\(empty string\)$/)
    expect(valueOf('asNumber').firstElementChild!.className).not.toBe(valueOf('asString').firstElementChild!.className)
    expect(valueOf('asBoolean').firstElementChild!.className).not.toBe(valueOf('asStringTrue').firstElementChild!.className)
  })
})
