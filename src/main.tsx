import { RouterProvider } from '@tanstack/react-router'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { createQueryClient } from './api/query-client.ts'
import { forgetEarlyKeys } from './lib/early-keys.ts'
import { removeFirstPaintShell } from './lib/first-paint.ts'
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
// The first page is on screen (its data, or its own loading or error state): the shell goes.
const stopShowingShell = router.subscribe('onRendered', () => {
  removeFirstPaintShell()
  stopShowingShell()
})

// Shortcuts pressed before the app ran are for its first page: a page left before any listened drops them.
router.subscribe('onBeforeNavigate', forgetEarlyKeys)

const root = document.getElementById('root')
if (!root) throw new Error('index.html has no #root element')

createRoot(root).render(
  <StrictMode>
    <RouterProvider router={router} />
  </StrictMode>,
)
