import { useId, useState, type FormEvent } from 'react'
import { errorOperationSchema } from '../../../contract/errors.ts'
import { Button } from '../../components/ui/button.tsx'
import { Dialog } from '../../components/ui/dialog.tsx'
import { Input, Label } from '../../components/ui/input.tsx'

/** Why the server would refuse this issue URL (the contract's own rule), or null when it is fine. */
export function issueUrlProblem(url: string): string | null {
  const parsed = errorOperationSchema.safeParse({ operation: 'link_issue', issue_url: url.trim() })
  if (parsed.success) return null
  return `The issue URL ${parsed.error.issues[0]?.message ?? 'is not valid'}, such as https://github.com/acme/shop/issues/12`
}

/** Link errors (one, or `count` selected) to an issue in a tracker: one http(s) URL, checked as the server checks it. */
export function LinkIssueDialog({
  open,
  count = 1,
  onClose,
  onLink,
}: {
  open: boolean
  count?: number
  onClose: () => void
  onLink: (url: string) => void
}) {
  const tracked = count === 1 ? 'this error' : `these ${count} errors`
  return (
    <Dialog open={open} onClose={onClose} title="Link an issue" description={`Paste the address of the issue that tracks ${tracked}.`}>
      <LinkIssueForm onCancel={onClose} onLink={onLink} />
    </Dialog>
  )
}

function LinkIssueForm({ onCancel, onLink }: { onCancel: () => void; onLink: (url: string) => void }) {
  const id = useId()
  const [url, setUrl] = useState('')
  const [problem, setProblem] = useState<string | null>(null)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    const found = issueUrlProblem(url)
    setProblem(found)
    if (!found) onLink(url.trim())
  }
  return (
    <form noValidate onSubmit={submit} className="flex flex-col gap-3">
      <div className="flex flex-col gap-1">
        <Label htmlFor={`${id}-url`}>Issue URL</Label>
        <Input
          id={`${id}-url`}
          type="url"
          inputMode="url"
          placeholder="https://github.com/acme/shop/issues/12"
          value={url}
          autoFocus
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? `${id}-problem` : undefined}
          onChange={(event) => setUrl(event.target.value)}
        />
        {problem ? (
          <p id={`${id}-problem`} role="alert" className="text-sm text-danger">
            {problem}
          </p>
        ) : null}
      </div>
      <div className="flex justify-end gap-2">
        <Button variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
        <Button type="submit" variant="primary">
          Link issue
        </Button>
      </div>
    </form>
  )
}
