import { LogIn } from 'lucide-react'
import { useId, useState } from 'react'
import type { LoginResponse } from '../../../contract/users.ts'
// Plain elements with the components' classes: this page (the first one a user loads) does without
// the components' module.
import { buttonVariants, fieldClass, labelClass } from '../../components/ui/classes.ts'
import { signIn, SignInError } from './sign-in.ts'

export function LoginForm({ onSignedIn }: { onSignedIn: (response: LoginResponse) => void | Promise<void> }) {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [pending, setPending] = useState(false)
  const [messages, setMessages] = useState<string[]>([])
  const errorId = useId()
  const failed = messages.length > 0

  return (
    <form
      className="flex flex-col gap-4"
      aria-describedby={failed ? errorId : undefined}
      onSubmit={async (event) => {
        event.preventDefault()
        setPending(true)
        try {
          const response = await signIn({ email, password })
          setMessages([])
          await onSignedIn(response)
        } catch (error) {
          setMessages(error instanceof SignInError ? error.messages : [error instanceof Error ? error.message : String(error)])
        } finally {
          setPending(false)
        }
      }}
    >
      <div className="flex flex-col gap-1.5">
        <label htmlFor="login-email" className={labelClass}>
          Email
        </label>
        <input
          id="login-email"
          className={fieldClass}
          type="email"
          autoComplete="username"
          required
          autoFocus
          value={email}
          aria-invalid={failed ? true : undefined}
          onChange={(event) => setEmail(event.target.value)}
        />
      </div>
      <div className="flex flex-col gap-1.5">
        <label htmlFor="login-password" className={labelClass}>
          Password
        </label>
        <input
          id="login-password"
          className={fieldClass}
          type="password"
          autoComplete="current-password"
          required
          value={password}
          aria-invalid={failed ? true : undefined}
          onChange={(event) => setPassword(event.target.value)}
        />
      </div>
      {failed ? (
        <div id={errorId} role="alert" className="rounded-md bg-danger-soft px-3 py-2 text-sm text-danger">
          {messages.map((message, index) => (
            <p key={index}>{message}</p>
          ))}
        </div>
      ) : null}
      <button type="submit" className={buttonVariants({ variant: 'primary' })} disabled={pending}>
        <LogIn aria-hidden="true" />
        {pending ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  )
}
