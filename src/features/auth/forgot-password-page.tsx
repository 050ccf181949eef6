import { useMutation, useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { Mail } from 'lucide-react'
import { useId, useState } from 'react'
import { passwordResetAvailabilityQuery, requestPasswordResetMutation } from '../../api/password-reset.ts'
import { Button, buttonVariants } from '../../components/ui/button.tsx'
import { Card, CardContent } from '../../components/ui/card.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { Input, Label } from '../../components/ui/input.tsx'
import { LoadingRegion, Skeleton } from '../../components/ui/skeleton.tsx'
import { ErrorState } from '../../components/ui/states.tsx'
import { useDocumentTitle } from '../../lib/use-document-title.ts'

/** /forgot-password: emails a link to choose a new password, or, with email off, says who can help. */
export function ForgotPasswordPage() {
  useDocumentTitle('Forgot password')
  const availability = useQuery(passwordResetAvailabilityQuery())
  return (
    <main className="flex min-h-dvh items-center justify-center px-4 py-12">
      <div className="w-full max-w-sm">
        <div className="mb-6 flex flex-col items-center gap-2 text-center">
          <img src="/favicon.svg" alt="" className="size-10" />
          <h1 className="text-xl font-semibold">Forgot your password?</h1>
        </div>
        <Card>
          <CardContent padding={5}>
            {availability.isPending ? (
              <LoadingRegion label="Loading" className="flex flex-col gap-3">
                <Skeleton className="h-24" />
              </LoadingRegion>
            ) : availability.isError ? (
              <ErrorState title="Could not reach Errata" error={availability.error} onRetry={() => void availability.refetch()} />
            ) : availability.data.email_enabled ? (
              <RequestLinkForm />
            ) : (
              <div className="flex flex-col gap-3 text-sm">
                <p>This Errata server does not send email, so it cannot send you a link.</p>
                <p>
                  Ask an admin of your organization, or whoever runs this server: they can set a new password for you with{' '}
                  <code className="rounded bg-muted px-1 py-0.5 text-xs">npm run errata -- reset-password YOUR-EMAIL</code>.
                </p>
              </div>
            )}
          </CardContent>
        </Card>
        <p className="mt-4 text-center text-sm">
          <Link to="/login" search={{}} className={buttonVariants({ variant: 'link' })}>
            Back to sign in
          </Link>
        </p>
      </div>
    </main>
  )
}

function RequestLinkForm() {
  const id = useId()
  const [email, setEmail] = useState('')
  const mutation = useMutation(requestPasswordResetMutation())
  if (mutation.isSuccess) {
    return (
      <div role="status" className="flex flex-col gap-3 text-sm">
        <p className="font-medium">Check your email.</p>
        <p className="break-words">
          If an account has the address <strong>{mutation.variables}</strong>, a link to choose a new password is on its way.
          It works once, for an hour. Nothing there? Look in the spam folder, or ask again in a few minutes.
        </p>
      </div>
    )
  }
  return (
    <form
      className="flex flex-col gap-4"
      onSubmit={(event) => {
        event.preventDefault()
        mutation.mutate(email)
      }}
    >
      <p className="text-sm text-muted-foreground">Enter your account’s email and we will send you a link to choose a new password.</p>
      <div className="flex flex-col gap-1.5">
        <Label htmlFor={`${id}-email`}>Email</Label>
        <Input
          id={`${id}-email`}
          type="email"
          required
          autoFocus
          autoComplete="username"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
        />
      </div>
      <FormErrors error={mutation.error} />
      <Button type="submit" variant="primary" disabled={mutation.isPending}>
        <Mail aria-hidden="true" />
        {mutation.isPending ? 'Sending…' : 'Email me a link'}
      </Button>
    </form>
  )
}
