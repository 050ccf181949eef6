import { createFileRoute, redirect } from '@tanstack/react-router'
import { readToken } from '../lib/token-store.ts'

export const Route = createFileRoute('/')({
  beforeLoad: () => {
    throw readToken() ? redirect({ to: '/organizations' }) : redirect({ to: '/login', search: {} })
  },
})
