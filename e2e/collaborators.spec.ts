// Collaborator management of issue 3 on the real server: invite (a pending link; the invitee
// picks their own name and password), what a member sees, accepting an invitation, removing with confirmation.
import { expect, test } from '@playwright/test'
import { simpleEvent } from './bugsnag-payload.ts'
import {
  addMember,
  Api,
  createProject,
  errorsByClass,
  NARROW,
  notify,
  shoot,
  shootNarrow,
  signIn,
  waitForEvents,
  watchPage,
  WIDE,
} from './support.ts'

test.use({ viewport: WIDE })

test('invite and remove collaborators; members see no admin controls', async ({ page, browser, request }) => {
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { organizationId, projectId, apiKey } = await createProject(api, 'team-web')
  await notify(request, apiKey, [simpleEvent({ errorClass: 'SharedError' })])
  await waitForEvents(api, projectId, 1)
  const errorId = (await errorsByClass(api, projectId)).get('SharedError')!.id
  const suffix = Date.now().toString(36)
  const linus = `linus-${suffix}@example.com`
  const grace = { email: `grace-${suffix}@example.com`, name: 'Grace Hopper', password: 'grace-password-123' }

  await signIn(page)
  await page.goto(`/organizations/${organizationId}`)
  await page.getByRole('link', { name: 'Manage collaborators' }).click()
  await expect(page.getByRole('heading', { level: 1, name: /: collaborators$/ })).toBeVisible()
  const table = page.getByRole('table', { name: 'Collaborators' })
  await expect(table.getByRole('row')).toHaveCount(2) // header + the admin
  const invite = page.getByRole('complementary', { name: 'Invite' })

  // By email only: a pending invitation whose link is shown once, to copy.
  await invite.getByLabel('Email').fill(linus)
  await invite.getByRole('button', { name: 'Invite' }).click()
  await expect(page.getByRole('status').filter({ hasText: `Invitation created for ${linus}.` })).toBeVisible()
  const link = page.getByRole('textbox', { name: `Invitation link for ${linus}`, exact: true })
  await expect(link).toHaveValue(/\/invitations\/[0-9a-f]{20,}$/)
  const invitationUrl = await link.inputValue()
  await expect(page.getByRole('button', { name: `Copy invitation link for ${linus}` })).toBeVisible()
  const linusRow = table.getByRole('row').filter({ hasText: linus })
  await expect(linusRow).toContainText('Pending')
  await shoot(page, 'collaborators-invited')

  // A second invitation, which Grace accepts with her own name and password (through the API
  // here; Linus uses the accept page below). Back on the list she is a member.
  await invite.getByLabel('Email').fill(grace.email)
  await invite.getByRole('button', { name: 'Invite' }).click()
  await expect(page.getByRole('status').filter({ hasText: `Invitation created for ${grace.email}.` })).toBeVisible()
  const graceLink = await page.getByRole('textbox', { name: `Invitation link for ${grace.email}`, exact: true }).inputValue()
  const accepted = await request.post(`/api/invitations/${graceLink.split('/').pop()!}/accept`, {
    headers: { 'X-Version': '2' },
    data: { name: grace.name, password: grace.password },
  })
  expect(accepted.status(), await accepted.text()).toBe(200)
  await page.reload()
  const graceRow = table.getByRole('row').filter({ hasText: grace.email })
  await expect(graceRow).toContainText('Member')
  await expect(graceRow).not.toContainText('Pending')
  await expect(table.getByRole('row')).toHaveCount(4)
  await shoot(page, 'collaborators-admin')
  await shootNarrow(page, 'collaborators-admin')

  // The member, in a browser of their own: everything readable, nothing to manage.
  const memberContext = await browser.newContext({ viewport: WIDE })
  const member = await memberContext.newPage()
  const memberWatched = watchPage(member)
  await signIn(member, grace.email, grace.password)
  await member.goto(`/organizations/${organizationId}/collaborators`)
  const memberTable = member.getByRole('table', { name: 'Collaborators' })
  await expect(memberTable.getByRole('row').filter({ hasText: grace.email })).toContainText('You')
  await expect(member.getByText('only admins can invite, change or remove collaborators')).toBeVisible()
  await expect(member.getByRole('complementary', { name: 'Invite' })).toHaveCount(0)
  await expect(member.getByRole('columnheader', { name: 'Actions' })).toHaveCount(0)
  await expect(member.getByRole('button', { name: /^(Remove|Make|Withdraw|Edit projects)/ })).toHaveCount(0)
  await shoot(member, 'collaborators-member')
  // A member triages but cannot delete errors.
  await member.goto(`/projects/${projectId}/errors/${errorId}`)
  const actions = member.getByRole('toolbar', { name: 'Error actions' })
  await expect(actions.getByRole('button', { name: 'Fix' })).toBeVisible()
  await expect(actions.getByRole('button', { name: 'Delete' })).toHaveCount(0)

  // The invitee opens the link, picks a name and password, and is signed in.
  const inviteeContext = await browser.newContext({ viewport: WIDE })
  const invitee = await inviteeContext.newPage()
  const inviteeWatched = watchPage(invitee)
  await invitee.goto(invitationUrl)
  await expect(invitee.getByRole('heading', { level: 1, name: /^Join / })).toBeVisible()
  await expect(invitee.getByLabel('Email')).toHaveValue(linus)
  await invitee.getByLabel('Name').fill('Linus Torvalds')
  await invitee.getByLabel('Password', { exact: true }).fill('linus-password-123')
  await invitee.getByLabel('Confirm password').fill('linus-password-123')
  await shoot(invitee, 'invitation-accept')
  await invitee.getByRole('button', { name: 'Create account and join' }).click()
  // A member who can open exactly one project lands on it.
  await expect(invitee).toHaveURL(/\/projects\/[^/]+\/errors/)
  await expect(invitee.getByRole('link', { name: /team-web org/ })).toBeVisible()
  await inviteeContext.close()

  // Back as the admin: the invitation became a member; remove Grace, with confirmation.
  await page.reload()
  await expect(linusRow).toContainText('Linus Torvalds')
  await expect(linusRow).not.toContainText('Pending')
  await page.getByRole('button', { name: `Remove ${grace.name}` }).click()
  const confirm = page.getByRole('dialog', { name: `Remove ${grace.name}?` })
  await expect(confirm).toContainText('loses access')
  await shoot(page, 'collaborators-remove-confirm')
  // Cancel first: nothing changes.
  await confirm.getByRole('button', { name: 'Cancel' }).click()
  await expect(confirm).toBeHidden()
  await expect(graceRow).toBeVisible()
  await page.getByRole('button', { name: `Remove ${grace.name}` }).click()
  await page.getByRole('dialog', { name: `Remove ${grace.name}?` }).getByRole('button', { name: 'Remove', exact: true }).click()
  await expect(graceRow).toHaveCount(0)
  await expect(table.getByRole('row')).toHaveCount(3)

  const collaborators = await api.get<{ email: string }[]>(`/organizations/${organizationId}/collaborators`)
  expect(collaborators.map((c) => c.email).sort()).toEqual(['admin@example.com', linus].sort())

  // Grace's session no longer reaches the organization.
  await member.goto(`/organizations/${organizationId}/collaborators`)
  await expect(member.getByRole('heading', { level: 1, name: /not found/i })).toBeVisible()
  await memberContext.close()

  expect(watched.pageErrors).toEqual([])
  expect(memberWatched.pageErrors).toEqual([])
  expect(inviteeWatched.pageErrors).toEqual([])
})

test('long names, long emails and every action fit, on a laptop beside the invite form and on a phone', async ({ page, request }) => {
  const watched = watchPage(page)
  const api = await Api.signIn(request)
  const { organizationId, projectId } = await createProject(api, 'team-long')
  const suffix = Date.now().toString(36)
  const longName = 'Maximilian Alexander von Neumann-Oppenheimer-Schwarzenberg'
  // No hyphen or space in them: nothing to break a line at.
  const longEmail = `maximilian.alexander.von.neumann.oppenheimer.${suffix}@very.long.company.domain.example.com`
  const invitee = `a.very.long.invitee.address.that.keeps.going.${suffix}@subdomain.example.enterprise.com`
  await addMember(api, organizationId, { email: longEmail, name: longName, password: 'maximilian-password-123', project_ids: [projectId] })
  await api.post(`/organizations/${organizationId}/collaborators`, { email: invitee })

  await signIn(page)
  await page.goto(`/organizations/${organizationId}/collaborators`)
  const table = page.getByRole('table', { name: 'Collaborators' })
  await expect(table.getByRole('row').filter({ hasText: invitee })).toContainText('Pending')

  /**
   * Nothing in the table is cut off: no sideways scrolling, no cell wider than its box, every
   * button inside the table; on a laptop each row's actions on one line (no tall, mostly empty rows).
   */
  const expectNothingClipped = async (at: string, actionsOnOneLine: boolean) => {
    const problems = await table.evaluate((element, oneLine) => {
      const found: string[] = []
      const box = element.parentElement!
      if (box.scrollWidth > box.clientWidth) found.push(`table scrolls sideways: ${box.scrollWidth} > ${box.clientWidth}`)
      const bounds = box.getBoundingClientRect()
      for (const cell of element.querySelectorAll<HTMLElement>('tbody th, tbody td')) {
        if (cell.scrollWidth > cell.clientWidth) found.push(`cell overflows: "${cell.textContent}" ${cell.scrollWidth} > ${cell.clientWidth}`)
      }
      for (const button of element.querySelectorAll('button')) {
        const rect = button.getBoundingClientRect()
        if (rect.left < bounds.left || rect.right > bounds.right || rect.right > window.innerWidth) {
          found.push(`button outside the table: ${button.getAttribute('aria-label')}`)
        }
      }
      if (oneLine) {
        for (const row of element.querySelectorAll('tbody tr')) {
          const tops = new Set([...row.querySelectorAll('button')].map((button) => Math.round(button.getBoundingClientRect().top)))
          if (tops.size > 1) found.push(`actions on ${tops.size} lines: ${row.querySelector('th')?.textContent}`)
        }
      }
      return found
    }, actionsOnOneLine)
    expect(problems, at).toEqual([])
  }
  await expect(page.getByRole('button', { name: `Withdraw invitation for ${invitee}` })).toBeVisible()
  await expectNothingClipped('1280 px', true)
  // The whole values are on screen, wrapped, not cut.
  await expect(table.getByText(longName, { exact: true })).toBeVisible()
  await expect(table.getByText(longEmail, { exact: true })).toBeVisible()
  await page.setViewportSize(NARROW)
  await expect(page.getByRole('button', { name: `Withdraw invitation for ${invitee}` })).toBeVisible()
  await expectNothingClipped('390 px', false)
  await page.setViewportSize(WIDE)
  expect(watched.pageErrors).toEqual([])
})
