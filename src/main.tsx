import { RouterProvider } from '@tanstack/react-router'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { createQueryClient } from './api/query-client.ts'
import { forgetFirstRequests } from './lib/first-requests.ts'
import './index.css'
import { createAppRouter } from './router.tsx'

const queryClient = createQueryClient()
const router = createAppRouter({ queryClient })
// The first page's loaders have taken what the page started for them (src/first-paint/first-requests.ts).
const stopForgetting = router.subscribe('onResolved', () => {
  forgetFirstRequests()
  stopForgetting()
})

const root = document.getElementById('root')
if (!root) throw new Error('index.html has no #root element')

// The first page renders once its route's code and data are in (or its error): until then
// index.html's frame stays in #root, which React's first render replaces. Mounted before, the
// router's first commits (empty while the route's code loads, then its pending view) replaced it.
void router
  .load()
  .catch(() => undefined)
  .then(() =>
    createRoot(root).render(
      <StrictMode>
        <RouterProvider router={router} />
      </StrictMode>,
    ),
  )
