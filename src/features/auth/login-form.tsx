import { useMutation } from '@tanstack/react-query'
import { LogIn } from 'lucide-react'
import { useId, useState } from 'react'
import type { LoginResponse } from '../../../contract/users.ts'
import { login } from '../../api/auth.ts'
import { isApiError } from '../../api/http.ts'
import { Button } from '../../components/ui/button.tsx'
import { Input, Label } from '../../components/ui/input.tsx'

export function LoginForm({ onSignedIn }: { onSignedIn: (response: LoginResponse) => void | Promise<void> }) {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const errorId = useId()
  const mutation = useMutation({ mutationFn: login, onSuccess: onSignedIn, meta: { inlineErrors: true } })
  const error = mutation.error
  const messages = error
    ? isApiError(error, 401)
      ? ['Wrong email or password.']
      : isApiError(error)
        ? error.messages
        : [error.message]
    : []

  return (
    <form
      className="flex flex-col gap-4"
      aria-describedby={error ? errorId : undefined}
      onSubmit={(event) => {
        event.preventDefault()
        mutation.mutate({ email, password })
      }}
    >
      <div className="flex flex-col gap-1.5">
        <Label htmlFor="login-email">Email</Label>
        <Input
          id="login-email"
          type="email"
          autoComplete="username"
          required
          autoFocus
          value={email}
          aria-invalid={error ? true : undefined}
          onChange={(event) => setEmail(event.target.value)}
        />
      </div>
      <div className="flex flex-col gap-1.5">
        <Label htmlFor="login-password">Password</Label>
        <Input
          id="login-password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          aria-invalid={error ? true : undefined}
          onChange={(event) => setPassword(event.target.value)}
        />
      </div>
      {messages.length > 0 ? (
        <div id={errorId} role="alert" className="rounded-md bg-danger-soft px-3 py-2 text-sm text-danger">
          {messages.map((message, index) => (
            <p key={index}>{message}</p>
          ))}
        </div>
      ) : null}
      <Button type="submit" variant="primary" disabled={mutation.isPending}>
        <LogIn aria-hidden="true" />
        {mutation.isPending ? 'Signing in…' : 'Sign in'}
      </Button>
    </form>
  )
}
