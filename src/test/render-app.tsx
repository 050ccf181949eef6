import { createMemoryHistory, RouterProvider } from '@tanstack/react-router'
import { render } from '@testing-library/react'
import { StrictMode } from 'react'
import { createQueryClient } from '../api/query-client.ts'
import { writeToken } from '../lib/token-store.ts'
import { createAppRouter } from '../router.tsx'

/** Renders the whole dashboard at `path` with a fresh QueryClient; the network must be mocked first. */
export function renderApp(path: string, { token = 'test-token', strict = false }: { token?: string | null; strict?: boolean } = {}) {
  if (token) writeToken(token)
  const queryClient = createQueryClient()
  // Fail fast in tests: a retry would only slow down the error-state assertions.
  queryClient.setDefaultOptions({ queries: { ...queryClient.getDefaultOptions().queries, retry: false } })
  const history = createMemoryHistory({ initialEntries: [path] })
  const router = createAppRouter({ queryClient, history })
  // `strict`: as main.tsx renders it (effects run twice on mount).
  const app = <RouterProvider router={router} />
  const utils = render(strict ? <StrictMode>{app}</StrictMode> : app)
  return { ...utils, router, queryClient }
}
