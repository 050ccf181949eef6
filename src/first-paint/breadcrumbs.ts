// The header's breadcrumbs (Organizations › organization › project) as the app's header shows them
// on a project's page (features/layout/app-header.tsx), painted by the page before the app runs:
// on phones they have a row of their own and long names wrap whole, so the header's height, and
// everything under it, depends on them. The same elements in the same classes (a unit
// test holds them to the app's), names as text nodes.

const SVG = 'http://www.w3.org/2000/svg'

export const crumbClasses = {
  nav: 'order-last min-w-0 basis-full pb-2 sm:order-none sm:flex-1 sm:basis-auto sm:pb-0',
  list: 'flex min-w-0 items-center gap-1 text-sm max-sm:flex-wrap',
  organizations: 'min-w-crumb flex shrink items-center gap-1 max-sm:min-w-0 max-sm:hidden',
  organization: 'min-w-crumb flex shrink items-center gap-1 max-sm:min-w-0 sm:max-w-fit sm:grow sm:basis-0',
  project: 'min-w-crumb flex shrink items-center gap-1 max-sm:min-w-0 font-medium text-foreground [&_a]:text-foreground',
  chevron: 'lucide lucide-chevron-right size-3.5 shrink-0 text-muted-foreground',
  parentChevron: 'lucide lucide-chevron-right size-3.5 shrink-0 text-muted-foreground max-sm:hidden',
  name: 'max-w-64 truncate max-sm:max-w-full',
  wholeName: 'max-w-64 truncate max-sm:max-w-full max-sm:whitespace-normal max-sm:[overflow-wrap:anywhere]',
  link: 'rounded text-muted-foreground hover:text-foreground',
}

/** lucide's ChevronRight, as the app draws it. */
function chevron(className: string): SVGElement {
  const svg = document.createElementNS(SVG, 'svg')
  const attributes = { xmlns: SVG, width: '24', height: '24', viewBox: '0 0 24 24', fill: 'none', stroke: 'currentColor', 'stroke-width': '2', 'stroke-linecap': 'round', 'stroke-linejoin': 'round', class: className, 'aria-hidden': 'true' }
  for (const [name, value] of Object.entries(attributes)) svg.setAttribute(name, value)
  const path = document.createElementNS(SVG, 'path')
  path.setAttribute('d', 'm9 18 6-6-6-6')
  svg.append(path)
  return svg
}

function crumb(className: string, nameClass: string, text: string, href: string, separator: SVGElement | null, current = false): HTMLElement {
  const item = document.createElement('li')
  item.className = className
  if (current) item.setAttribute('aria-current', 'page')
  const link = document.createElement('a')
  // The router marks the link to the page on screen.
  link.className = current ? `${crumbClasses.link} active` : crumbClasses.link
  if (current) link.setAttribute('aria-current', 'page')
  link.href = href
  link.textContent = text
  const name = document.createElement('span')
  name.className = nameClass
  name.append(link)
  if (separator) item.append(separator)
  item.append(name)
  return item
}

export interface CrumbNames {
  organizationId: string
  organizationName: string
  projectId: string
  projectName: string
}

export function breadcrumbsElement(names: CrumbNames): HTMLElement {
  const nav = document.createElement('nav')
  nav.setAttribute('aria-label', 'Breadcrumbs')
  nav.className = crumbClasses.nav
  const list = document.createElement('ol')
  list.className = crumbClasses.list
  list.append(
    crumb(crumbClasses.organizations, crumbClasses.name, 'Organizations', '/organizations', null),
    crumb(crumbClasses.organization, crumbClasses.wholeName, names.organizationName, `/organizations/${encodeURIComponent(names.organizationId)}`, chevron(crumbClasses.parentChevron)),
    crumb(crumbClasses.project, crumbClasses.wholeName, names.projectName, `/projects/${encodeURIComponent(names.projectId)}/errors`, chevron(crumbClasses.chevron), true),
  )
  nav.append(list)
  return nav
}
