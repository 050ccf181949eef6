import { render, screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { TrendChart } from './trend-chart.tsx'

const HOUR = 3_600_000
const hours = (counts: number[]) =>
  counts.map((events_count, i) => ({
    events_count,
    from: new Date(Date.UTC(2026, 10, 20, i)).toISOString(),
    to: new Date(Date.UTC(2026, 10, 20, i + 1)).toISOString(),
  }))

/** The y-axis tick labels as drawn. */
const yTicks = (name = 'Events per hour') =>
  [...screen.getByRole('figure', { name }).querySelectorAll('.recharts-yAxis-tick-labels text')].map(
    (tick) => tick.textContent,
  )

const renderChart = (counts: number[]) =>
  render(<TrendChart buckets={hours(counts)} resolutionMs={HOUR} windowMs={counts.length * HOUR} label="Events per hour" />)

describe('trend chart', () => {
  it('labels the y-axis compactly, so five-digit counts fit its width ("20K", not a clipped "20,000")', () => {
    renderChart([12_000, 59_000, 31_000])
    expect(yTicks()).toEqual(['0', '20K', '40K', '60K'])
  })

  it('keeps every label within four characters at any volume, and small counts as they are', () => {
    const { unmount } = renderChart([400_000, 1_150_000])
    expect(yTicks()).toEqual(['0', '400K', '800K', '1.2M'])
    unmount()
    renderChart([3, 9])
    expect(yTicks()).toEqual(['0', '3', '6', '9'])
  })

  it('keeps exact counts in the table of numbers', () => {
    renderChart([12_345])
    expect(screen.getByRole('cell', { name: '12,345' })).toBeInTheDocument()
  })

  it('on the log scale, labels four powers of ten up to the peak, so a trickle of 3 shows beside a burst of 12,000', () => {
    render(
      <TrendChart buckets={hours([3, 0, 12_000, 2])} resolutionMs={HOUR} windowMs={4 * HOUR} label="Events per hour" scale="log" />,
    )
    expect(yTicks('Events per hour (log scale)')).toEqual(['0', '10', '1K', '100K'])
    const heights = [...document.querySelectorAll('.recharts-bar-rectangle path')].map((bar) => Number(bar.getAttribute('height')))
    // 3 events reach more than a tenth of the 12,000 burst's height (on a linear axis: 1/4000th).
    const [trickle, burst] = [heights[0]!, Math.max(...heights)]
    expect(trickle / burst).toBeGreaterThan(0.1)
  })
})
