import type { DeletionStatus, RetrievalStatus } from '../../../contract/privacy.ts'
import { Badge } from '../../components/ui/badge.tsx'

const LABELS: Record<RetrievalStatus | DeletionStatus, { text: string; tone: 'info' | 'warning' | 'success' | 'danger' }> = {
  PREPARING: { text: 'Preparing', tone: 'info' },
  AWAITING_CONFIRMATION: { text: 'Awaiting confirmation', tone: 'warning' },
  ACCEPTED: { text: 'Deleting', tone: 'info' },
  COMPLETED: { text: 'Completed', tone: 'success' },
  FAILED: { text: 'Failed', tone: 'danger' },
}

/** A request's state in words, with the API's name for it on hover. */
export function RequestStatus({ status }: { status: RetrievalStatus | DeletionStatus }) {
  const { text, tone } = LABELS[status]
  return (
    <Badge tone={tone} title={status}>
      {text}
    </Badge>
  )
}
