import { Hono, type Context } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { buildReportSchema } from '../../contract/releases.ts'
import type { AppEnv } from '../context.ts'
import { Failure, PayloadTooLargeError, UnauthorizedError } from '../failures.ts'
import { parseInput, readJson } from '../http/validate.ts'
import { projectIdForApiKey } from '../ingest/accept/project-keys.ts'
import { recordBuild } from './releases.service.ts'

/** A build report is a few fields; anything larger is not one. */
const MAX_BUILD_BODY_BYTES = 64 * 1024

/**
 * Bugsnag's build API: bugsnag-build-reporter posts to the endpoint it is given as is (the
 * server root), the Bugsnag CLI and others to /build. 200 once stored: the reporter retries
 * any other status but 400.
 */
async function reportBuild(c: Context<AppEnv>) {
  const report = parseInput(buildReportSchema, await readJson(c.req.raw))
  const apiKey = report.apiKey.trim()
  if (!/^[0-9a-f]{32}$/.test(apiKey)) throw new Failure('unauthenticated', ['apiKey: is not an API key (32 lowercase hexadecimal characters)'])
  let projectId: string
  try {
    projectId = await projectIdForApiKey(c.var.deps.database, apiKey)
  } catch (err) {
    if (err instanceof UnauthorizedError) throw new Failure('unauthenticated', ['apiKey: no project has this API key'])
    throw err
  }
  await recordBuild(c.var.deps.database.db, projectId, report)
  return c.json({ status: 'ok' }, 200)
}

const limit = bodyLimit({
  maxSize: MAX_BUILD_BODY_BYTES,
  onError: (c) => {
    c.header('Connection', 'close')
    throw new PayloadTooLargeError(MAX_BUILD_BODY_BYTES)
  },
})

export const buildRoutes = new Hono<AppEnv>().post('/build', limit, reportBuild).post('/', limit, reportBuild)
