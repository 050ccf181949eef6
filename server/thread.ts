import { Worker } from 'node:worker_threads'

/** A reply from a thread started by startThread: the request's id and its result or failure (as plain data). */
export interface ThreadReply {
  id: number
  result?: unknown
  error?: Record<string, unknown>
}

/**
 * Starts `entry` (a TypeScript module) on a worker thread and waits for its first message
 * (`{ id: 0 }`, ready); `send` posts a request with a fresh id and resolves with the reply
 * of the same id. The worker registers tsx's loader, then imports the module: Node 20 does not
 * apply `--import` hooks to a worker's entry module. If the thread dies, every request in
 * flight and every later one fails with why.
 */
export async function startThread(entry: URL, workerData: unknown, name: string) {
  const bootstrap = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}) })`
  const worker = new Worker(bootstrap, { eval: true, workerData })
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (err: unknown) => void }>()
  let nextId = 1
  let failure: unknown = null

  const ready = new Promise<void>((resolve, reject) => {
    pending.set(0, { resolve: () => resolve(), reject })
  })
  worker.on('message', (reply: ThreadReply) => {
    const waiter = pending.get(reply.id)
    if (!waiter) return
    pending.delete(reply.id)
    if (reply.error) waiter.reject(Object.assign(new Error(String(reply.error.message)), reply.error))
    else waiter.resolve(reply.result)
  })
  const failAll = (err: unknown) => {
    failure = err
    for (const waiter of pending.values()) waiter.reject(err)
    pending.clear()
  }
  worker.on('error', failAll)
  worker.on('exit', (code) => failAll(new Error(`the ${name} thread exited (code ${code})`)))
  await ready

  return {
    send<T>(request: object): Promise<T> {
      if (failure) return Promise.reject(failure)
      const id = nextId++
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject })
        worker.postMessage({ ...request, id })
      })
    },
    terminate: () => worker.terminate(),
  }
}

/** A failure as plain data: Error objects lose their own fields (code, detail…) between threads. */
export function describeError(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: String(err) }
  const described: Record<string, unknown> = { name: err.name, message: err.message }
  for (const [key, value] of Object.entries(err)) {
    if (typeof value === 'string' || typeof value === 'number') described[key] = value
  }
  return described
}
