// What the project switcher lists: each organization's projects, filtered by what was typed.

export interface ProjectChoiceGroup {
  organization: { id: string; name: string }
  projects: { id: string; name: string }[]
}

/** Lower case without accents, so "cafe" finds "Café". */
const fold = (text: string) => text.normalize('NFD').replace(/\p{Diacritic}/gu, '').toLowerCase()

/**
 * The groups to show for a search: a project matches when every word typed is in its name or its
 * organization's name. Organizations keep their order, projects are sorted by name, and groups
 * left without a project are dropped.
 */
export function toProjectChoices(groups: readonly ProjectChoiceGroup[], search: string): ProjectChoiceGroup[] {
  const words = fold(search).split(/\s+/).filter(Boolean)
  return groups
    .map((group) => ({
      organization: group.organization,
      projects: group.projects
        .filter((project) => {
          const text = `${fold(project.name)} ${fold(group.organization.name)}`
          return words.every((word) => text.includes(word))
        })
        .sort((a, b) => a.name.localeCompare(b.name)),
    }))
    .filter((group) => group.projects.length > 0)
}
