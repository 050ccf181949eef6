import { screen, waitFor, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import type { Release } from '../../../contract/releases.ts'
import { project } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { renderApp } from '../../test/render-app.tsx'

const baseRoutes = {
  'GET /api/projects/p1': project(),
  'GET /api/organizations/org1': { id: 'org1', name: 'Acme Inc.', slug: 'acme', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' },
  'GET /api/user': { id: 'u1', name: 'Admin', email: 'admin@example.com', created_at: '2026-01-01T00:00:00Z' },
}

const release = (id: string, version: string, figures: Partial<Release>, stage = 'production'): Release => ({
  id,
  project_id: 'p1',
  release_group_id: id,
  app_version: version,
  app_version_code: null,
  app_bundle_version: null,
  release_stage: stage,
  release_time: '2026-11-20T10:00:00.000Z',
  release_source: 'session',
  builder_name: null,
  build_tool: null,
  source_control: null,
  metadata: null,
  total_sessions_count: 0,
  sessions_count_in_last_24h: 0,
  unhandled_sessions_count: 0,
  crash_free_rate: null,
  errors_introduced_count: 0,
  errors_seen_count: 0,
  regressions_count: 0,
  url: `/projects/p1/releases/${id}`,
  html_url: `/projects/p1/releases/${id}`,
  ...figures,
})

describe('releases page', () => {
  it('lists versions newest first, each against the previous version in words, with its adoption and the window of each number', async () => {
    const { requests } = mockApi({
      ...baseRoutes,
      'GET /api/projects/p1/releases': json(
        [
          release('r3', '2.0.0', { crash_free_rate: 0.8, errors_introduced_count: 3, sessions_count_in_last_24h: 25, total_sessions_count: 40 }),
          release('r2', '1.10.0', { crash_free_rate: 0.99, errors_introduced_count: 1, sessions_count_in_last_24h: 75, total_sessions_count: 900 }),
          release('r1', '1.9.0', { crash_free_rate: 0.99, errors_introduced_count: 1, total_sessions_count: 300 }),
        ],
        { headers: { 'X-Total-Count': '3' } },
      ),
      'GET /api/projects/p1/stability': { total: { sessions: 100, crashed_sessions: 0, crash_free_rate: 1, first_seen: null }, releases: [] },
    })
    renderApp('/projects/p1/releases')
    const items = within(await screen.findByRole('list', { name: 'Releases' })).getAllByRole('listitem')
    expect(items.map((item) => within(item).getByRole('heading', { level: 3 }).textContent)).toEqual([
      '2.0.0production',
      '1.10.0production',
      '1.9.0production',
    ])
    const newest = items[0]!
    expect(newest).toHaveTextContent('Crash-free · since first seen80.0%')
    expect(newest).toHaveTextContent('down 19.0 points from 1.10.0')
    expect(newest).toHaveTextContent('New errors · since first seen3')
    expect(newest).toHaveTextContent('2 more than 1.10.0')
    await waitFor(() => expect(newest).toHaveTextContent('Adoption · last 24 hours25%of production sessions · 25'))
    expect(items[1]).toHaveTextContent('75%')
    expect(items[1]).toHaveTextContent('same as 1.9.0')
    expect(items[1]).toHaveTextContent('as many as 1.9.0')
    // The oldest version has nothing to compare with.
    expect(items[2]).not.toHaveTextContent(/from|than/)

    // Ordered by the server (sort=version); adoption is a share of the stage's sessions in the last 24 hours.
    const list = requests.find((r) => r.url.pathname === '/api/projects/p1/releases')!
    expect(list.url.searchParams.get('sort')).toBe('version')
    const stage = requests.find((r) => r.url.pathname === '/api/projects/p1/stability')!
    expect(stage.url.searchParams.getAll('filters[event.since][][value]')).toEqual(['24h'])
    expect(stage.url.searchParams.getAll('filters[app.release_stage][][value]')).toEqual(['production'])
  })
})
