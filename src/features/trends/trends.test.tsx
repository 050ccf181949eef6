import { QueryClientProvider } from '@tanstack/react-query'
import { render, renderHook, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import type * as React from 'react'
import { describe, expect, it, vi } from 'vitest'
import type { Filters } from '../../../contract/filters.ts'
import { createQueryClient } from '../../api/query-client.ts'
import { errorGroup } from '../../test/fixtures.ts'
import { writeToken } from '../../lib/token-store.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { ErrorTrendChart } from './error-trend-chart.tsx'
import { ProjectTrendChart } from './project-trend-chart.tsx'
import { Sparkline, sparklineWindow, useErrorSparklines } from './error-sparklines.tsx'

function wrapper() {
  writeToken('test-token')
  const client = createQueryClient()
  client.setDefaultOptions({ queries: { retry: false } })
  return ({ children }: { children: React.ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>
}

const day = (from: string, events_count: number) => ({
  events_count,
  from: `${from}T00:00:00.000Z`,
  to: new Date(Date.parse(`${from}T00:00:00.000Z`) + 86_400_000).toISOString(),
})

describe('sparklines', () => {
  it('asks /error_trends once for the loaded rows (daily, last 14 days by default), 100 ids per request', async () => {
    const { requests } = mockApi({
      'GET /api/projects/p1/error_trends': (request) =>
        json(Object.fromEntries((request.url.searchParams.get('error_ids') ?? '').split(',').map((id) => [id, [day('2026-11-20', 2)]]))),
    })
    const ids = Array.from({ length: 60 }, (_, i) => `e${i}`)
    const { result, rerender } = renderHook(
      ({ errorIds }) => useErrorSparklines('p1', errorIds, { 'error.status': [{ type: 'eq', value: 'open' }] }),
      { wrapper: wrapper(), initialProps: { errorIds: ids } },
    )
    await waitFor(() => expect(result.current.bucketsOf('e59')).toHaveLength(1))
    expect(requests).toHaveLength(1)
    const [request] = requests
    expect(request!.url.searchParams.get('error_ids')!.split(',')).toEqual(ids)
    expect(request!.url.searchParams.get('resolution')).toBe('1d')
    expect(request!.url.searchParams.getAll('filters[event.since][][value]')).toEqual(['14d'])
    expect(request!.url.searchParams.getAll('filters[error.status][][value]')).toEqual(['open'])
    expect(result.current.label).toBe('Events per day, last 14 days')

    // Another page of rows: 160 ids → two requests of 100 and 60.
    const more = Array.from({ length: 160 }, (_, i) => `e${i}`)
    rerender({ errorIds: more })
    await waitFor(() => expect(result.current.bucketsOf('e159')).toHaveLength(1))
    const sizes = requests.slice(1).map((r) => r.url.searchParams.get('error_ids')!.split(',').length)
    expect(sizes.sort((a, b) => a - b)).toEqual([60, 100])
  })

  it('follows a short time range with hourly buckets', async () => {
    const { requests } = mockApi({ 'GET /api/projects/p1/error_trends': {} })
    const { result } = renderHook(() => useErrorSparklines('p1', ['e1'], { 'event.since': [{ type: 'eq', value: '24h' }] }), {
      wrapper: wrapper(),
    })
    await waitFor(() => expect(requests).toHaveLength(1))
    expect(requests[0]!.url.searchParams.get('resolution')).toBe('1h')
    expect(result.current.label).toBe('Events per hour, last 24 hours')
  })

  it('follows the last hour with 5-minute buckets, not two hourly points', async () => {
    const { requests } = mockApi({ 'GET /api/projects/p1/error_trends': {} })
    const { result } = renderHook(() => useErrorSparklines('p1', ['e1'], { 'event.since': [{ type: 'eq', value: '1h' }] }), {
      wrapper: wrapper(),
    })
    await waitFor(() => expect(requests).toHaveLength(1))
    expect(requests[0]!.url.searchParams.get('resolution')).toBe('5m')
    expect(requests[0]!.url.searchParams.getAll('filters[event.since][][value]')).toEqual(['1h'])
    expect(result.current.label).toBe('Events per 5 minutes, last hour')
  })

  it('draws a labelled line with the total', () => {
    render(<Sparkline buckets={[day('2026-11-20', 40), day('2026-11-21', 2)]} label="Events per day, last 14 days" />)
    const image = screen.getByRole('img', { name: 'Events per day, last 14 days: 42' })
    expect(image.querySelector('polyline')?.getAttribute('points')).toBe('1,1 79,21.9')
  })
})

describe('sparkline window', () => {
  const between = (since: string, before: string) => ({
    'event.since': [{ type: 'eq' as const, value: since }],
    'event.before': [{ type: 'eq' as const, value: before }],
  })

  it('fits a range selected on the chart with the finest resolution that stays a few dozen points', () => {
    const zoomed = sparklineWindow(between('2026-11-22T23:30:00.000Z', '2026-11-23T00:00:00.000Z'))
    expect(zoomed).toMatchObject({ resolution: '1m', label: 'Events per minute, selected range' })
    expect(sparklineWindow(between('2026-11-10T00:00:00.000Z', '2026-11-20T00:00:00.000Z'))).toMatchObject({ resolution: '6h', label: 'Events per 6 hours, selected range' })
    expect(sparklineWindow(between('2026-01-01T00:00:00.000Z', '2026-11-20T00:00:00.000Z')).resolution).toBe('1d')
  })

  it('keeps daily and hourly sparklines for the preset ranges', () => {
    expect(sparklineWindow({ 'event.since': [{ type: 'eq', value: '7d' }] })).toMatchObject({ resolution: '1d', label: 'Events per day, last 7 days' })
    expect(sparklineWindow({ 'event.since': [{ type: 'eq', value: '24h' }] })).toMatchObject({ resolution: '1h', label: 'Events per hour, last 24 hours' })
  })

  it('cuts a range of a few hours or less in minutes, a few dozen points at most', () => {
    const since = (value: string) => ({ 'event.since': [{ type: 'eq' as const, value }] })
    expect(sparklineWindow(since('1h'))).toMatchObject({ resolution: '5m', label: 'Events per 5 minutes, last hour' })
    expect(sparklineWindow(since('3h')).resolution).toBe('5m')
    expect(sparklineWindow(since('30m'))).toMatchObject({ resolution: '1m', label: 'Events per minute, last 30m' })
    expect(sparklineWindow(since('6h'))).toMatchObject({ resolution: '30m', label: 'Events per 30 minutes, last 6h' })
    // Hourly up to two days (a day and a half of daily buckets would be two points), daily beyond.
    expect(sparklineWindow(since('36h')).resolution).toBe('1h')
    expect(sparklineWindow(since('3d')).resolution).toBe('1d')
  })
})

describe('error trend chart', { timeout: 20_000 }, () => {
  it('draws the error’s buckets and changes its range locally, or through onFiltersChange', async () => {
    const { requests } = mockApi({
      'GET /api/projects/p1/errors/e1/trend': [day('2026-11-20', 4), day('2026-11-21', 0), day('2026-11-22', 6)],
    })
    const Wrapper = wrapper()
    const { unmount } = render(<ErrorTrendChart projectId="p1" errorId="e1" filters={{}} />, { wrapper: Wrapper })
    const chart = await screen.findByRole('figure', { name: /Events of this error .*: 10 events/ }, { timeout: 10_000 })
    expect(within(chart).getAllByRole('row')).toHaveLength(4)
    const trendRequests = () => requests.filter((request) => request.url.pathname.endsWith('/trend'))
    // The error's first event could not be read: the 30 days the server charts, and said so.
    expect(trendRequests()[0]!.url.searchParams.get('resolution')).toBe('6h')
    expect(screen.getByText(/last 30 days, per 6 hours/)).toBeInTheDocument()

    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Time range' }), '7d')
    await waitFor(() => expect(trendRequests().at(-1)!.url.searchParams.getAll('filters[event.since][][value]')).toEqual(['7d']))
    expect(trendRequests().at(-1)!.url.searchParams.get('resolution')).toBe('1h')
    unmount()

    const onFiltersChange = vi.fn()
    render(<ErrorTrendChart projectId="p1" errorId="e1" filters={{}} onFiltersChange={onFiltersChange} />, { wrapper: Wrapper })
    const zoom = await screen.findAllByRole('button', { name: /^Zoom to/ })
    await userEvent.click(zoom[0]!)
    expect(onFiltersChange).toHaveBeenCalledWith({
      'event.since': [{ type: 'eq', value: '2026-11-20T00:00:00.000Z' }],
      'event.before': [{ type: 'eq', value: '2026-11-21T00:00:00.000Z' }],
    })
  })

  it('starts all time at the error’s first event, so a young error fills the chart', async () => {
    const firstSeen = new Date(Date.now() - 2 * 3_600_000).toISOString()
    const { requests } = mockApi({
      'GET /api/projects/p1/errors/e1': errorGroup({ first_seen: firstSeen }),
      'GET /api/projects/p1/errors/e1/trend': [day('2026-11-20', 4)],
    })
    render(<ErrorTrendChart projectId="p1" errorId="e1" filters={{}} />, { wrapper: wrapper() })
    await screen.findByRole('figure', { name: /: 4 events/ }, { timeout: 10_000 })
    const trends = requests.filter((request) => request.url.pathname.endsWith('/trend'))
    // One request, for the window the chart draws: from the first event, in minutes (two hours of 30-day buckets would be one bar).
    expect(trends).toHaveLength(1)
    expect(trends[0]!.url.searchParams.get('resolution')).toBe('1m')
    expect(trends[0]!.url.searchParams.getAll('filters[event.since][][value]')).toEqual([firstSeen])
    expect(screen.getByText(/all time \(first event .*\), per minute/)).toBeInTheDocument()
    // The control still says what the person chose.
    expect(screen.getByRole('combobox', { name: 'Time range' })).toHaveDisplayValue('All time')
  })

  it('says when there are no events in the range', async () => {
    mockApi({ 'GET /api/projects/p1/errors/e1/trend': [day('2026-11-20', 0)] })
    const { unmount } = render(<ErrorTrendChart projectId="p1" errorId="e1" filters={{}} />, { wrapper: wrapper() })
    expect(await screen.findByText('No events in the last 30 days')).toBeInTheDocument()
    unmount()
    render(<ErrorTrendChart projectId="p1" errorId="e1" filters={{ 'event.since': [{ type: 'eq', value: '24h' }] }} />, {
      wrapper: wrapper(),
    })
    expect(await screen.findByText('No events in this range')).toBeInTheDocument()
  })

  it('an empty project chart says "No events yet" and looks again until the first events arrive', async () => {
    let arrived = false
    const { requests } = mockApi({
      'GET /api/projects/p1/trend': () => json([day('2026-11-20', 0), day('2026-11-21', arrived ? 5 : 0)]),
      'GET /api/projects/p1/errors': () => json(arrived ? [errorGroup()] : []),
    })
    render(
      <ProjectTrendChart
        projectId="p1"
        filters={{ 'error.status': [{ type: 'eq', value: 'open' }] }}
        resolution="auto"
        onResolutionChange={() => {}}
        onSelectRange={() => {}}
      />,
      { wrapper: wrapper() },
    )
    // Nothing to widen or remove: the project has never received an event.
    expect(await screen.findByText('No events yet')).toBeInTheDocument()
    expect(screen.queryByText(/longer time range|remove a filter/)).not.toBeInTheDocument()
    // Asked without filters: the view's filters must not make a project look new.
    const errorsRequest = requests.find(
      (request) => request.url.pathname === '/api/projects/p1/errors' && request.url.searchParams.get('sort') === 'last_seen',
    )
    expect([...errorsRequest!.url.searchParams.keys()].filter((key) => key.startsWith('filters'))).toEqual([])
    arrived = true
    expect(await screen.findByRole('figure', { name: /: 5 events/ }, { timeout: 10_000 })).toBeInTheDocument()
  })

  it('starts at the oldest matching error’s first event, asked with the chart’s filters', async () => {
    const firstSeen = new Date(Date.now() - 3 * 86_400_000).toISOString()
    const { requests } = mockApi({
      'GET /api/projects/p1/errors': [errorGroup({ first_seen: firstSeen })],
      'GET /api/projects/p1/trend': [day('2026-11-20', 7)],
    })
    const filters: Filters = { 'event.since': [{ type: 'eq', value: '30d' }], 'app.release_stage': [{ type: 'eq', value: 'production' }] }
    render(<ProjectTrendChart projectId="p1" filters={filters} resolution="auto" onResolutionChange={() => {}} onSelectRange={() => {}} />, {
      wrapper: wrapper(),
    })
    await screen.findByRole('figure', { name: /: 7 events/ }, { timeout: 10_000 })
    const extent = requests.find((request) => request.url.pathname === '/api/projects/p1/errors')!
    expect(Object.fromEntries(['sort', 'direction', 'per_page'].map((key) => [key, extent.url.searchParams.get(key)]))).toEqual({
      sort: 'first_seen',
      direction: 'asc',
      per_page: '1',
    })
    expect(extent.url.searchParams.getAll('filters[app.release_stage][][value]')).toEqual(['production'])
    const trends = requests.filter((request) => request.url.pathname.endsWith('/trend'))
    expect(trends).toHaveLength(1)
    // Three days of a 30-day range: hourly, from the first event, the release stage kept.
    expect(trends[0]!.url.searchParams.get('resolution')).toBe('1h')
    expect(trends[0]!.url.searchParams.getAll('filters[event.since][][value]')).toEqual([firstSeen])
    expect(trends[0]!.url.searchParams.getAll('filters[app.release_stage][][value]')).toEqual(['production'])
    expect(screen.getByText(/last 30 days \(first event .*\), per hour/)).toBeInTheDocument()
  })

  it('advises a longer range or fewer filters only when a range or a filter hides the events', async () => {
    mockApi({
      'GET /api/projects/p1/trend': [day('2026-11-20', 0)],
      'GET /api/projects/p1/errors': [errorGroup()],
    })
    const chart = (filters: Filters) => (
      <ProjectTrendChart projectId="p1" filters={filters} resolution="auto" onResolutionChange={() => {}} onSelectRange={() => {}} />
    )
    const { rerender } = render(chart({ 'event.since': [{ type: 'eq', value: '7d' }] }), { wrapper: wrapper() })
    expect(await screen.findByText('No events in this range')).toBeInTheDocument()
    expect(screen.getByText('Choose a longer time range or remove a filter.')).toBeInTheDocument()

    rerender(chart({ 'app.release_stage': [{ type: 'eq', value: 'staging' }] }))
    expect(await screen.findByText('No events in this range')).toBeInTheDocument()

    // All time and no filter: nothing to widen; all time charts the last 30 days.
    rerender(chart({}))
    expect(await screen.findByText('No events in the last 30 days')).toBeInTheDocument()
    expect(screen.queryByText(/longer time range|remove a filter/)).not.toBeInTheDocument()
  })
})
