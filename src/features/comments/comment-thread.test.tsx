import { QueryClientProvider } from '@tanstack/react-query'
import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import type * as React from 'react'
import { describe, expect, it } from 'vitest'
import type { Comment } from '../../../contract/webhooks.ts'
import { createQueryClient } from '../../api/query-client.ts'
import { writeToken } from '../../lib/token-store.ts'
import { collaborator, project } from '../../test/fixtures.ts'
import { json, mockApi } from '../../test/mock-api.ts'
import { CommentThread } from './comment-thread.tsx'

function wrapper() {
  writeToken('test-token')
  const client = createQueryClient()
  client.setDefaultOptions({ queries: { retry: false } })
  return ({ children }: { children: React.ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>
}

const me = { id: 'u1', name: 'Ada', email: 'ada@example.com', created_at: '2026-01-01T00:00:00Z' }
const comment: Comment = {
  id: 'c1',
  error_id: 'e1',
  project_id: 'p1',
  message: 'Seen after the 2.4 deploy',
  author: { id: 'u1', name: 'Ada', email: 'ada@example.com' },
  created_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-22T10:00:00.000Z',
}

describe('comment thread', { timeout: 15_000 }, () => {
  it('asks before deleting a comment; Cancel keeps it, Delete comment removes it', async () => {
    let comments = [comment]
    const { requests } = mockApi({
      'GET /api/user': me,
      'GET /api/projects/p1': project(),
      'GET /api/organizations/org1/collaborators': [collaborator({ id: 'u1', name: 'Ada', email: 'ada@example.com' })],
      'GET /api/projects/p1/errors/e1/comments': () => json(comments),
      'DELETE /api/comments/c1': () => {
        comments = []
        return new Response(null, { status: 204 })
      },
    })
    render(<CommentThread projectId="p1" errorId="e1" />, { wrapper: wrapper() })
    const deletions = () => requests.filter((request) => request.method === 'DELETE')

    await userEvent.click(await screen.findByRole('button', { name: 'Delete this comment' }))
    let dialog = await screen.findByRole('dialog', { name: 'Delete this comment?' })
    expect(within(dialog).getByText('Seen after the 2.4 deploy')).toBeInTheDocument()
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument()
    expect(deletions()).toHaveLength(0)

    await userEvent.click(screen.getByRole('button', { name: 'Delete this comment' }))
    dialog = await screen.findByRole('dialog', { name: 'Delete this comment?' })
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete comment' }))
    await waitFor(() => expect(deletions()).toHaveLength(1))
    expect(await screen.findByText('No comments yet.')).toBeInTheDocument()
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument()
  })
})
