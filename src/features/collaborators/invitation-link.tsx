import { AlertTriangle, MailCheck } from 'lucide-react'
import { useId } from 'react'
import { CopyButton } from '../../components/ui/copy-button.tsx'
import { Input } from '../../components/ui/input.tsx'

/** The accept link of a fresh invitation: the server answers it once and stores only its hash. */
export function InvitationLink({ email, url, emailed }: { email: string; url: string; emailed: boolean }) {
  const id = useId()
  return (
    <div className="flex flex-col gap-2">
      <label htmlFor={id} className="text-sm font-medium">
        Invitation link for {email}
      </label>
      <div className="flex items-center gap-2">
        <Input id={id} readOnly value={url} size="code" onFocus={(event) => event.currentTarget.select()} />
        <CopyButton value={url} label={`Copy invitation link for ${email}`} />
      </div>
      {emailed ? (
        <p className="flex items-start gap-1.5 text-xs text-muted-foreground">
          <MailCheck aria-hidden="true" className="mt-px size-3.5 shrink-0" />
          An email with this link was sent to {email}. You can also pass it on yourself: it is shown only this once.
          It expires in 14 days.
        </p>
      ) : (
        <p className="flex items-start gap-1.5 text-xs text-muted-foreground">
          <AlertTriangle aria-hidden="true" className="mt-px size-3.5 shrink-0 text-warning" />
          Email is off on this server: copy the link now and send it to them, it is shown only this once. It expires in
          14 days; to get a new one, create a new link from the collaborators list.
        </p>
      )}
    </div>
  )
}
