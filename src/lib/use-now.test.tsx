import { act, render, screen } from '@testing-library/react'
import { useState } from 'react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { RelativeTime } from '../components/ui/relative-time.tsx'

describe('useNow', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] })
    vi.setSystemTime(Date.parse('2026-11-22T12:00:00.000Z'))
  })
  afterEach(() => vi.useRealTimers())

  it('refreshes the shared clock when a time mounts between ticks, so a new entry reads "just now"', async () => {
    let add: (iso: string) => void = () => {}
    function History() {
      const [times, setTimes] = useState(['2026-11-22T11:00:00.000Z'])
      add = (iso) => setTimes((list) => [...list, iso])
      return (
        <ul>
          {times.map((time) => (
            <li key={time}>
              <RelativeTime value={time} />
            </li>
          ))}
        </ul>
      )
    }
    render(<History />)
    expect(screen.getByText('1 hour ago')).toBeInTheDocument()
    // 25 s later, between two ticks of the 30 s clock, a status change is made now.
    vi.setSystemTime(Date.parse('2026-11-22T12:02:25.000Z'))
    await act(async () => {
      add(new Date(Date.now() - 1000).toISOString())
      await Promise.resolve()
    })
    expect(screen.getByText('just now')).toBeInTheDocument()
    expect(screen.getByText('1 hour ago')).toBeInTheDocument()
  })
})
