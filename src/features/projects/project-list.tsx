import { Link } from '@tanstack/react-router'
import type { Project } from '../../../contract/projects.ts'
import { Badge } from '../../components/ui/badge.tsx'
import { EmptyState } from '../../components/ui/states.tsx'
import { formatCountOf } from '../../lib/relative-time.ts'
import { ApiKeyField } from './api-key-field.tsx'

function OpenErrors({ count }: { count: number }) {
  return (
    <Badge tone={count > 0 ? 'danger' : 'neutral'} className="self-start tabular-nums sm:self-auto">
      {formatCountOf(count, 'open error')}
    </Badge>
  )
}

export function ProjectList({ projects }: { projects: readonly Project[] }) {
  if (projects.length === 0) {
    return (
      <EmptyState title="No projects yet">
        Create a project to get an API key, then point a Bugsnag notifier at Errata.
      </EmptyState>
    )
  }
  return (
    <ul aria-label="Projects" className="divide-y divide-border overflow-hidden rounded-lg border border-border bg-surface">
      {projects.map((project) => (
        <li key={project.id} className="flex flex-col gap-2 px-4 py-3 sm:flex-row sm:items-center sm:gap-4">
          <div className="min-w-0 flex-1">
            <Link
              to="/projects/$projectId/errors"
              params={{ projectId: project.id }}
              className="block truncate rounded font-medium text-accent hover:underline"
            >
              {project.name}
            </Link>
            <p className="text-xs text-muted-foreground">{project.type}</p>
          </div>
          <OpenErrors count={project.open_error_count} />
          <ApiKeyField apiKey={project.api_key} projectName={project.name} />
        </li>
      ))}
    </ul>
  )
}
