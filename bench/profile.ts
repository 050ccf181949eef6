// Optional CPU profile of the main thread (BENCH_PROFILE=1): where the server's time goes during ingestion.
import { Session, type Profiler } from 'node:inspector'

export interface ProfileSummary {
  totalMs: number
  /** Self time per area: the database engine (WASM), each package, each server/ file, node internals, GC, idle. */
  byArea: { name: string; selfMs: number; percent: number }[]
  top: { name: string; selfMs: number; percent: number }[]
}

function areaOf(url: string, functionName: string): string {
  if (url.startsWith('wasm://')) return 'PGlite WASM (database engine)'
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)
  if (pkg) return pkg[1]!
  const own = /\/((?:server|bench|contract)\/.+)$/.exec(url)
  if (own) return own[1]!
  if (!url) return functionName.startsWith('(') ? functionName : `native: ${functionName}`
  return 'node internals'
}

export async function startProfile(): Promise<() => Promise<ProfileSummary>> {
  const session = new Session()
  session.connect()
  const post = <T>(method: string, params?: object) =>
    new Promise<T>((resolve, reject) =>
      session.post(method, params, (err, result) => (err ? reject(err) : resolve(result as T))),
    )
  await post('Profiler.enable')
  await post('Profiler.setSamplingInterval', { interval: 500 })
  await post('Profiler.start')
  return async () => {
    const { profile } = await post<{ profile: Profiler.Profile }>('Profiler.stop')
    session.disconnect()
    return summarize(profile)
  }
}

/** Self time per function (name + file), largest first. */
function summarize(profile: Profiler.Profile): ProfileSummary {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]))
  const counts = new Map<number, number>()
  for (const id of profile.samples ?? []) counts.set(id, (counts.get(id) ?? 0) + 1)
  const totalMs = (profile.endTime - profile.startTime) / 1000
  const sampleMs = totalMs / Math.max(1, profile.samples?.length ?? 1)
  const self = new Map<string, number>()
  const areas = new Map<string, number>()
  for (const [id, n] of counts) {
    const frame = byNode.get(id)!.callFrame
    const area = areaOf(frame.url, frame.functionName)
    areas.set(area, (areas.get(area) ?? 0) + n * sampleMs)
    const file = frame.url.replace(/^file:\/\/.*?\/(node_modules|server|bench)\//, '$1/')
    const name = `${frame.functionName || '(anonymous)'} ${file ? `${file}:${frame.lineNumber + 1}` : ''}`.trim()
    self.set(name, (self.get(name) ?? 0) + n * sampleMs)
  }
  const rank = (entries: Map<string, number>, n: number) =>
    [...entries.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, selfMs]) => ({ name, selfMs, percent: (100 * selfMs) / totalMs }))
  return { totalMs, byArea: rank(areas, 15), top: rank(self, 30) }
}
