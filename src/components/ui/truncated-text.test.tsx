import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { TRUNCATION_MARKER } from '../../../contract/events.ts'
import { TruncatedText } from './truncated-text.tsx'

describe('TruncatedText', () => {
  it('offers the whole of a long value', async () => {
    render(<TruncatedText text={'a'.repeat(1000)} maxChars={100} />)
    await userEvent.click(screen.getByRole('button', { name: 'Show all 1,000 characters' }))
    expect(screen.getByText('a'.repeat(1000))).toBeInTheDocument()
    expect(screen.queryByText(/cut when stored/)).not.toBeInTheDocument()
  })

  it('says when the server cut the value at ingest, and counts only what it kept', async () => {
    // A 102 KB message as stored: the first 32,768 characters and the marker.
    render(<TruncatedText text={`${'m'.repeat(32_768)}${TRUNCATION_MARKER}`} maxChars={400} />)
    expect(screen.getByText('(cut when stored: the notifier sent more than the 32,768 characters Errata keeps)')).toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Show all 32,768 stored characters' }))
    expect(screen.getByText('m'.repeat(32_768), { exact: false })).toBeInTheDocument()
    expect(screen.queryByText(/\[truncated\]/)).not.toBeInTheDocument()
  })
})
