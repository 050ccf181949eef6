import { createFileRoute } from '@tanstack/react-router'
import { NotificationSettingsPage } from '../../features/settings/notification-settings-page.tsx'

export const Route = createFileRoute('/_authed/settings/notifications')({
  component: NotificationSettingsPage,
})
