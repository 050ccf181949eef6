import { Send } from 'lucide-react'
import { useId, useState } from 'react'
import type { Project } from '../../../contract/projects.ts'
import { Card, CardContent } from '../../components/ui/card.tsx'
import { CopyButton } from '../../components/ui/copy-button.tsx'
import { Label, Select } from '../../components/ui/input.tsx'
import { ApiKeyField } from '../projects/api-key-field.tsx'
import { NOTIFIER_PLATFORMS, notifierSetup, PLATFORM_NAMES, platformForProjectType, type NotifierPlatform } from './notifier-setup.ts'

/** The errors list when nothing has arrived yet: what to do next, with everything to copy. */
export function SendFirstError({ project, origin }: { project: Project; origin: string }) {
  // The project's type picks the notifier; another one is a choice away (a Node.js API may
  // also have a browser front end).
  const [platform, setPlatform] = useState<NotifierPlatform>(() => platformForProjectType(project.type))
  const setup = notifierSetup(platform, project.api_key, origin)
  const platformFieldId = useId()
  return (
    <Card aria-labelledby="send-first-error-title">
      <CardContent padding={6} className="flex flex-col gap-4">
        <div className="flex items-start gap-3">
          <Send aria-hidden="true" className="mt-0.5 size-5 shrink-0 text-accent" />
          <div className="min-w-0">
            <h2 id="send-first-error-title" className="text-base font-semibold">
              Send your first error
            </h2>
            <p className="mt-1 text-sm text-muted-foreground [overflow-wrap:anywhere]">
              No errors yet for {project.name}. Point any Bugsnag notifier at this server with the project’s API key;
              errors show up here as soon as they arrive.
            </p>
          </div>
        </div>
        <div className="flex flex-col gap-1">
          <span className="text-xs font-medium text-muted-foreground">API key</span>
          <ApiKeyField apiKey={project.api_key} projectName={project.name} />
        </div>
        <div className="flex flex-col gap-1">
          <Label htmlFor={platformFieldId} quiet>
            Notifier
          </Label>
          <Select
            id={platformFieldId}
            value={platform}
            onChange={(event) => setPlatform(event.target.value as NotifierPlatform)}
            className="sm:max-w-72"
          >
            {NOTIFIER_PLATFORMS.map((value) => (
              <option key={value} value={value}>
                {PLATFORM_NAMES[value]}
              </option>
            ))}
          </Select>
        </div>
        <div className="flex flex-col gap-1">
          <p className="text-xs text-muted-foreground [overflow-wrap:anywhere]">
            Install: <code className="text-foreground">{setup.install}</code>
          </p>
          <div className="flex items-center justify-between gap-2">
            <span className="min-w-0 text-xs font-medium text-muted-foreground">{setup.where}</span>
            <CopyButton value={setup.code} label="Copy notifier snippet" />
          </div>
          <pre
            aria-label="Notifier snippet"
            // Scrolls sideways on narrow screens: focusable so the keyboard can scroll it too.
            tabIndex={0}
            className="overflow-x-auto rounded-md border border-border bg-surface-muted p-3 font-mono text-xs leading-relaxed"
          >
            <code>{setup.code}</code>
          </pre>
          <p className="text-xs text-muted-foreground">
            Any other Bugsnag notifier works too: set its notify endpoint to <code>{origin}/notify</code> and its sessions
            endpoint to <code>{origin}/sessions</code>.
          </p>
        </div>
        <p role="status" className="flex items-center gap-2 text-xs text-muted-foreground">
          <span aria-hidden="true" className="size-2 animate-pulse rounded-full bg-accent" />
          Listening for the first error; this page updates by itself.
        </p>
      </CardContent>
    </Card>
  )
}
