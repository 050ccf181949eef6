// autocannon ships no types and @types/autocannon is not installed: only what bench/autocannon-load.ts
// and test/process use.
declare module 'autocannon' {
  interface Request {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string
  }
  interface Options {
    url: string
    connections?: number
    amount?: number
    duration?: number
    workers?: number
    timeout?: number
    requests?: Request[]
  }
  interface Histogram {
    p50: number
    p90: number
    p99: number
    average: number
    max: number
  }
  interface Result {
    '2xx': number
    non2xx: number
    errors: number
    timeouts: number
    requests: Histogram & { total: number; sent: number }
    latency: Histogram
    start: Date
    finish: Date
  }
  interface Instance {
    stop(): void
    on(event: 'response', listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): Instance
  }
  function autocannon(options: Options): Promise<Result>
  function autocannon(options: Options, done: (err: Error | null, result: Result) => void): Instance
  export type { Result }
  export default autocannon
}
