import { errorMessages } from '../../lib/error-messages.ts'

/** A failed form submission, with the server's messages (they name the field). */
export function FormErrors({ error }: { error: Error | null }) {
  if (!error) return null
  return (
    <div role="alert" className="rounded-md bg-danger-soft px-3 py-2 text-sm text-danger">
      {errorMessages(error).map((message, index) => (
        <p key={index} className="break-words">
          {message}
        </p>
      ))}
    </div>
  )
}
