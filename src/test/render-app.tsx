import { createMemoryHistory, RouterProvider } from '@tanstack/react-router'
import { render } from '@testing-library/react'
import { createQueryClient } from '../api/query-client.ts'
import { writeToken } from '../lib/token-store.ts'
import { createAppRouter } from '../router.tsx'

/** Renders the whole dashboard at `path` with a fresh QueryClient; the network must be mocked first. */
export function renderApp(path: string, { token = 'test-token' }: { token?: string | null } = {}) {
  if (token) writeToken(token)
  const queryClient = createQueryClient()
  // Fail fast in tests: a retry would only slow down the error-state assertions.
  queryClient.setDefaultOptions({ queries: { ...queryClient.getDefaultOptions().queries, retry: false } })
  const history = createMemoryHistory({ initialEntries: [path] })
  const router = createAppRouter({ queryClient, history })
  const utils = render(<RouterProvider router={router} />)
  return { ...utils, router, queryClient }
}
