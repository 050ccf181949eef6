import { createFileRoute } from '@tanstack/react-router'
import { PersonalTokensPage } from '../../features/settings/personal-tokens-page.tsx'

export const Route = createFileRoute('/_authed/settings/tokens')({
  component: PersonalTokensPage,
})
