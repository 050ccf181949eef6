import { QueryClientProvider } from '@tanstack/react-query'
import { render, screen, within } from '@testing-library/react'
import type * as React from 'react'
import { describe, expect, it } from 'vitest'
import type { Webhook, WebhookDelivery } from '../../../contract/webhooks.ts'
import { createQueryClient } from '../../api/query-client.ts'
import { formatExactTime } from '../../lib/relative-time.ts'
import { writeToken } from '../../lib/token-store.ts'
import { mockApi } from '../../test/mock-api.ts'
import { DeliveryLog } from './delivery-log.tsx'

function wrapper() {
  writeToken('test-token')
  const client = createQueryClient()
  client.setDefaultOptions({ queries: { retry: false } })
  return ({ children }: { children: React.ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>
}

const webhook: Webhook = {
  id: 'w1',
  project_id: 'p1',
  url: 'https://hooks.example.com/errata',
  format: 'errata',
  triggers: ['firstException'],
  settings: {},
  filters: {},
  enabled: true,
  disabled_reason: null,
  failing_since: null,
  created_at: '2026-11-20T10:00:00.000Z',
  updated_at: '2026-11-20T10:00:00.000Z',
}

const delivery = (overrides: Partial<WebhookDelivery>): WebhookDelivery => ({
  id: 'd1',
  webhook_id: 'w1',
  trigger: 'firstException',
  test: false,
  state: 'delivered',
  attempts: 1,
  last_status: 200,
  last_error: null,
  created_at: '2026-11-22T10:00:00.000Z',
  finished_at: '2026-11-22T10:00:01.000Z',
  error_id: null,
  payload: { trigger: { type: 'firstException' } },
  attempt_log: [],
  ...overrides,
})

describe('delivery log', () => {
  it('names triggers as the form does, marks tests, and shows the receiver’s answer as text with the app’s time format', async () => {
    mockApi({
      'GET /api/webhooks/w1/deliveries': [
        delivery({
          id: 'd2',
          trigger: 'errorStateManualChange',
          test: true,
          attempt_log: [
            { attempted_at: '2026-11-22T10:00:00.000Z', status: 200, duration_ms: 12, error: null, response_excerpt: '<b>ok</b>\nthanks' },
          ],
        }),
        delivery({ id: 'd1', trigger: 'exception' }),
      ],
    })
    render(<DeliveryLog webhook={webhook} isAdmin />, { wrapper: wrapper() })
    const items = await screen.findAllByRole('listitem')
    expect(items).toHaveLength(2)
    expect(within(items[0]!).getByText('Error status changed by a collaborator')).toBeInTheDocument()
    expect(within(items[0]!).getByText('Test')).toBeInTheDocument()
    expect(within(items[1]!).getByText('Every event')).toBeInTheDocument()
    expect(within(items[1]!).queryByText('Test')).not.toBeInTheDocument()
    expect(screen.queryByText('errorStateManualChange')).not.toBeInTheDocument()

    // The answer is text in a <pre> (markup from the receiver stays text), its time the app's.
    const answer = within(items[0]!).getByLabelText('Receiver’s answer')
    expect(answer.tagName).toBe('PRE')
    expect(answer.textContent).toBe('<b>ok</b>\nthanks')
    expect(answer.querySelector('b')).toBeNull()
    expect(within(items[0]!).getAllByRole('time')[1]).toHaveAttribute('title', formatExactTime('2026-11-22T10:00:00.000Z'))
    expect(within(items[0]!).getByRole('button', { name: /^Redeliver test delivery d2/ })).toBeInTheDocument()
  })
})
