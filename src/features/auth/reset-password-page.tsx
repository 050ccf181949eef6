import { useMutation } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { KeyRound } from 'lucide-react'
import { useId, useState } from 'react'
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, PASSWORD_RULE } from '../../../contract/users.ts'
import { confirmPasswordResetMutation } from '../../api/password-reset.ts'
import { isApiError } from '../../api/http.ts'
import { Button, buttonVariants } from '../../components/ui/button.tsx'
import { Card, CardContent } from '../../components/ui/card.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { Input, Label } from '../../components/ui/input.tsx'
import { useDocumentTitle } from '../../lib/use-document-title.ts'

/** /reset-password?token=…: the emailed link; no sign-in needed (the token is the credential). */
export function ResetPasswordPage({ token }: { token: string | undefined }) {
  useDocumentTitle('Choose a new password')
  return (
    <main className="flex min-h-dvh items-center justify-center px-4 py-12">
      <div className="w-full max-w-sm">
        <div className="mb-6 flex flex-col items-center gap-2 text-center">
          <img src="/favicon.svg" alt="" className="size-10" />
          <h1 className="text-xl font-semibold">Choose a new password</h1>
        </div>
        <Card>
          <CardContent padding={5}>
            {token ? (
              <ResetPasswordForm token={token} />
            ) : (
              <p className="text-sm">
                This link has no token: open the link from the email as it is, or{' '}
                <Link to="/forgot-password" className="underline">
                  ask for a new one
                </Link>
                .
              </p>
            )}
          </CardContent>
        </Card>
      </div>
    </main>
  )
}

function ResetPasswordForm({ token }: { token: string }) {
  const id = useId()
  const [password, setPassword] = useState('')
  const [confirm, setConfirm] = useState('')
  const [localError, setLocalError] = useState<Error | null>(null)
  const mutation = useMutation(confirmPasswordResetMutation())
  if (mutation.isSuccess) {
    return (
      <div role="status" className="flex flex-col gap-4 text-sm">
        <p>Your password is changed, and every browser that was signed in to your account is signed out.</p>
        <Link to="/login" search={{}} className={buttonVariants({ variant: 'primary' })}>
          Sign in
        </Link>
      </div>
    )
  }
  const linkIsDead = isApiError(mutation.error, 410) || isApiError(mutation.error, 400)
  return (
    <form
      className="flex flex-col gap-4"
      onSubmit={(event) => {
        event.preventDefault()
        if (password.length < MIN_PASSWORD_LENGTH) {
          setLocalError(new Error(`password: must be at least ${MIN_PASSWORD_LENGTH} characters`))
        } else if (password !== confirm) {
          setLocalError(new Error('The two passwords do not match.'))
        } else {
          setLocalError(null)
          mutation.mutate({ token, password })
        }
      }}
    >
      <div className="flex flex-col gap-1.5">
        <Label htmlFor={`${id}-password`}>New password</Label>
        <Input
          id={`${id}-password`}
          type="password"
          required
          autoFocus
          maxLength={MAX_PASSWORD_LENGTH}
          autoComplete="new-password"
          aria-describedby={`${id}-password-rule`}
          value={password}
          onChange={(event) => setPassword(event.target.value)}
        />
        <p id={`${id}-password-rule`} className="text-xs text-muted-foreground">
          {PASSWORD_RULE}
        </p>
      </div>
      <div className="flex flex-col gap-1.5">
        <Label htmlFor={`${id}-confirm`}>Confirm new password</Label>
        <Input
          id={`${id}-confirm`}
          type="password"
          required
          autoComplete="new-password"
          value={confirm}
          onChange={(event) => setConfirm(event.target.value)}
        />
      </div>
      <FormErrors error={localError ?? mutation.error} />
      {linkIsDead ? (
        <Link to="/forgot-password" className={buttonVariants({ variant: 'link' })}>
          Ask for a new link
        </Link>
      ) : null}
      <Button type="submit" variant="primary" disabled={mutation.isPending}>
        <KeyRound aria-hidden="true" />
        {mutation.isPending ? 'Saving…' : 'Set new password'}
      </Button>
    </form>
  )
}
