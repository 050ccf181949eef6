import { QueryClientProvider } from '@tanstack/react-query'
import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import type * as React from 'react'
import { describe, expect, it, vi } from 'vitest'
import type { Webhook } from '../../../contract/webhooks.ts'
import { createQueryClient } from '../../api/query-client.ts'
import { writeToken } from '../../lib/token-store.ts'
import { mockApi } from '../../test/mock-api.ts'
import { WebhookForm } from './webhook-form.tsx'

function wrapper() {
  writeToken('test-token')
  const client = createQueryClient()
  client.setDefaultOptions({ queries: { retry: false } })
  return ({ children }: { children: React.ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>
}

const saved: Webhook = {
  id: 'w1',
  project_id: 'p1',
  url: 'https://hooks.slack.com/services/T/B/x',
  format: 'slack',
  triggers: ['firstException'],
  settings: {},
  filters: {},
  enabled: true,
  disabled_reason: null,
  failing_since: null,
  created_at: '2026-11-20T10:00:00.000Z',
  updated_at: '2026-11-20T10:00:00.000Z',
}

describe('webhook form', () => {
  it('offers each format by name, says which address to paste, and sends the chosen one', async () => {
    const { requests } = mockApi({ 'POST /api/projects/p1/webhooks': saved })
    const onSaved = vi.fn()
    render(<WebhookForm projectId="p1" onSaved={onSaved} onCancel={() => {}} />, { wrapper: wrapper() })
    const format = screen.getByLabelText('Format')
    expect(format).toHaveValue('errata')
    expect([...format.querySelectorAll('option')].map((o) => o.textContent)).toEqual(['Errata JSON (signed)', 'Slack', 'Discord', 'Microsoft Teams', 'Mattermost'])
    await userEvent.selectOptions(format, 'Slack')
    expect(screen.getByText(/A Slack incoming webhook URL/)).toBeInTheDocument()
    await userEvent.selectOptions(format, 'Microsoft Teams')
    expect(screen.getByText(/When a Teams webhook request is received/)).toBeInTheDocument()
    await userEvent.selectOptions(format, 'Slack')
    await userEvent.type(screen.getByLabelText('Target URL'), saved.url)
    await userEvent.click(screen.getByRole('button', { name: 'Create webhook' }))
    await vi.waitFor(() => expect(onSaved).toHaveBeenCalled())
    expect(requests.find((r) => r.method === 'POST')!.body).toMatchObject({ url: saved.url, format: 'slack', triggers: ['firstException'] })
  })

  it('edits a webhook in its format', () => {
    mockApi({})
    render(<WebhookForm projectId="p1" webhook={{ ...saved, format: 'discord' }} onSaved={() => {}} onCancel={() => {}} />, { wrapper: wrapper() })
    expect(screen.getByLabelText('Format')).toHaveValue('discord')
  })
})
