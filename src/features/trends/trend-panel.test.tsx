import type { UseQueryResult } from '@tanstack/react-query'
import { render, screen, waitFor } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import type { TrendBucket } from '../../../contract/trends.ts'
import { TrendBody } from './trend-panel.tsx'

// Records when the chart's module is first loaded (the mock's factory runs on the first import).
const chartModuleLoaded = vi.hoisted(() => ({ at: null as number | null }))
vi.mock('./trend-chart.tsx', () => {
  chartModuleLoaded.at = Date.now()
  return { TrendChart: () => <p>the chart</p> }
})

describe('TrendBody', () => {
  it('starts loading the chart’s code while the trend is still being asked for, not once its data arrives', async () => {
    const pending = { isPending: true, isError: false, data: undefined } as unknown as UseQueryResult<TrendBucket[]>
    render(<TrendBody query={pending} empty={null} resolutionMs={3_600_000} windowMs={86_400_000} label="Events" height={64} />)
    expect(screen.getByText('Loading the trend')).toBeInTheDocument()
    await waitFor(() => expect(chartModuleLoaded.at).not.toBeNull())
    expect(screen.queryByText('the chart')).not.toBeInTheDocument()
  })
})
