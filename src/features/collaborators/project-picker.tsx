import { useId } from 'react'
import type { Project } from '../../../contract/projects.ts'

/**
 * Which projects a member may see: null means every project (now and future ones), otherwise the
 * chosen ids. Admins always see everything, so the picker is disabled for them.
 */
export function ProjectPicker({
  projects,
  value,
  onChange,
  disabled,
}: {
  projects: readonly Pick<Project, 'id' | 'name'>[]
  value: readonly string[] | null
  onChange: (value: string[] | null) => void
  disabled?: boolean
}) {
  const id = useId()
  const all = value === null
  const selected = new Set(value ?? [])
  return (
    <fieldset className="flex flex-col gap-1.5" disabled={disabled}>
      <legend className="mb-1 text-sm font-medium">Projects</legend>
      <label htmlFor={`${id}-all`} className="flex items-center gap-2 text-sm">
        <input
          id={`${id}-all`}
          type="checkbox"
          className="size-4 accent-accent"
          checked={all || Boolean(disabled)}
          onChange={(event) => onChange(event.target.checked ? null : [])}
        />
        All projects
      </label>
      {disabled ? (
        <p className="text-xs text-muted-foreground">Admins always see every project.</p>
      ) : all ? null : projects.length === 0 ? (
        <p className="text-xs text-muted-foreground">This organization has no projects yet.</p>
      ) : (
        <ul aria-label="Chosen projects" className="ml-6 flex max-h-48 flex-col gap-1 overflow-y-auto">
          {projects.map((project) => (
            <li key={project.id}>
              <label className="flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  className="size-4 accent-accent"
                  checked={selected.has(project.id)}
                  onChange={(event) => {
                    const next = new Set(selected)
                    if (event.target.checked) next.add(project.id)
                    else next.delete(project.id)
                    // Keep the organization's order, not the click order.
                    onChange(projects.filter((p) => next.has(p.id)).map((p) => p.id))
                  }}
                />
                <span className="truncate">{project.name}</span>
              </label>
            </li>
          ))}
        </ul>
      )}
    </fieldset>
  )
}

/**
 * "All projects", or the names of the chosen ones (ids this viewer cannot see are counted).
 * `partial`: the viewer is limited to some projects, so the API left out of someone else's list
 * every project the viewer cannot see (without saying whether there were any): an empty list
 * then means none the viewer can see, not none at all.
 */
export function projectsLabel(
  projectIds: readonly string[] | null,
  projects: readonly Pick<Project, 'id' | 'name'>[],
  { partial = false }: { partial?: boolean } = {},
): string {
  if (projectIds === null) return 'All projects'
  if (projectIds.length === 0) return partial ? 'No projects you can see' : 'No projects'
  const names = new Map(projects.map((p) => [p.id, p.name]))
  const known = projectIds.flatMap((projectId) => names.get(projectId) ?? [])
  const hidden = projectIds.length - known.length
  if (hidden > 0) known.push(`${hidden} other ${hidden === 1 ? 'project' : 'projects'}`)
  return known.join(', ')
}
