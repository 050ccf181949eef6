// CPU time of one process's threads, or of a set of processes, read from /proc (Linux). Used by
// bench/ingest-cpu.ts: CPU time spent by the server itself is what other load on the machine
// leaves alone, unlike wall-clock rates.
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

/** The fields of /proc/<pid>/stat and /proc/<pid>/task/<tid>/stat that the bench uses (times in clock ticks). */
export interface StatFields {
  comm: string
  state: string
  ppid: number
  utime: number
  stime: number
  /** CPU of waited-for children (processes only). */
  cutime: number
  cstime: number
  /** Clock ticks after boot. */
  startTime: number
}

/**
 * One stat line. `comm` may hold spaces and parentheses ("(sd-pam)", "postgres: x"), so it
 * runs from the first "(" to the last ")"; the numbered fields follow (proc(5): field 3 is the state).
 */
export function parseStat(text: string): StatFields {
  const open = text.indexOf('(')
  const close = text.lastIndexOf(')')
  if (open < 0 || close < open) throw new Error(`not a /proc stat line: ${text.slice(0, 80)}`)
  const fields = text.slice(close + 1).trim().split(/\s+/)
  const field = (n: number) => {
    const value = Number(fields[n - 3])
    if (!Number.isFinite(value)) throw new Error(`/proc stat field ${n} missing in: ${text.slice(0, 120)}`)
    return value
  }
  return {
    comm: text.slice(open + 1, close),
    state: fields[0] ?? '?',
    ppid: field(4),
    utime: field(14),
    stime: field(15),
    cutime: field(16),
    cstime: field(17),
    startTime: field(22),
  }
}

let ticksPerSecond: number | undefined

/** USER_HZ, the unit of the times in /proc (`getconf CLK_TCK`, 100 on Linux). */
export function clockTicksPerSecond(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
    } catch {
      ticksPerSecond = 100
    }
  }
  return ticksPerSecond
}

export const ticksToMicros = (ticks: number) => (ticks * 1_000_000) / clockTicksPerSecond()

/** The file's text, or null when the process or thread is gone (it may exit between two reads). */
function readIfThere(path: string): string | null {
  try {
    return readFileSync(path, 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ESRCH') return null
    throw err
  }
}

export interface ThreadTimes {
  tid: number
  comm: string
  /** utime + stime, clock ticks. */
  ticks: number
  startTime: number
}

export interface ProcessThreads {
  pid: number
  comm: string
  /** The whole process: live threads plus the ones that have exited. */
  ticks: number
  threads: Map<number, ThreadTimes>
}

/** Every thread's CPU time; null when the process is gone. Threads that vanish while being read are left out. */
export function readThreads(pid: number): ProcessThreads | null {
  const own = readIfThere(`/proc/${pid}/stat`)
  if (own === null) return null
  const process = parseStat(own)
  let tids: string[]
  try {
    tids = readdirSync(`/proc/${pid}/task`)
  } catch {
    return null
  }
  const threads = new Map<number, ThreadTimes>()
  for (const name of tids) {
    const tid = Number(name)
    const stat = readIfThere(`/proc/${pid}/task/${tid}/stat`)
    if (stat === null) continue
    const fields = parseStat(stat)
    // comm from stat is cut to 15 characters, as /proc/<pid>/task/<tid>/comm is.
    threads.set(tid, { tid, comm: fields.comm, ticks: fields.utime + fields.stime, startTime: fields.startTime })
  }
  return { pid, comm: process.comm, ticks: process.utime + process.stime, threads }
}

/** System call numbers a thread idles in: an event loop (epoll) or a condition variable (futex). */
const IDLE_SYSCALLS: Record<string, { eventLoop: number[]; futex: number[] }> = {
  x64: { eventLoop: [7, 232, 281, 441], futex: [202, 449] }, // poll, epoll_wait, epoll_pwait, epoll_pwait2; futex, futex_waitv
  arm64: { eventLoop: [22, 73, 441], futex: [98, 449] }, // epoll_pwait, ppoll, epoll_pwait2; futex, futex_waitv
}

export type IdleWait = 'event loop' | 'futex' | 'other'

/**
 * What an idle thread waits in (/proc/<pid>/task/<tid>/syscall): node's threads are all
 * named "node", but a thread with its own event loop (a worker thread, a loader thread) waits
 * in epoll, while the V8 platform's and libuv's pool threads wait on a futex. Null while the
 * thread runs, or when unknown on this architecture.
 */
export function idleWait(pid: number, tid: number): IdleWait | null {
  const numbers = IDLE_SYSCALLS[process.arch]
  const text = readIfThere(`/proc/${pid}/task/${tid}/syscall`)
  if (!numbers || text === null) return null
  const first = text.trim().split(/\s+/)[0]
  if (first === undefined || first === 'running' || first === '-1') return null
  const number = Number(first)
  if (numbers.eventLoop.includes(number)) return 'event loop'
  if (numbers.futex.includes(number)) return 'futex'
  return 'other'
}

export interface ProcessTimes {
  pid: number
  ppid: number
  comm: string
  /** The process title (cmdline), e.g. "postgres: walwriter". */
  title: string
  ticks: number
  /** CPU of its children that have exited and been waited for. */
  childTicks: number
}

/** These processes' CPU times; the ones that are gone are left out. */
export function readProcesses(pids: Iterable<number>): Map<number, ProcessTimes> {
  const result = new Map<number, ProcessTimes>()
  for (const pid of pids) {
    const stat = readIfThere(`/proc/${pid}/stat`)
    if (stat === null) continue
    const fields = parseStat(stat)
    const title = (readIfThere(`/proc/${pid}/cmdline`) ?? '').replaceAll('\0', ' ').trim()
    result.set(pid, {
      pid,
      ppid: fields.ppid,
      comm: fields.comm,
      title,
      ticks: fields.utime + fields.stime,
      childTicks: fields.cutime + fields.cstime,
    })
  }
  return result
}

/** Every process id now in /proc. */
export function listPids(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
}

const isPostgres = (process: ProcessTimes) => process.comm === 'postgres' || process.title.startsWith('postgres:')

/**
 * A PostgreSQL server's processes: the postmaster `postmasterPid` and its children that are
 * postgres processes (comm "postgres" or title "postgres: …": backends, WAL writer,
 * checkpointer, autovacuum, …). Other clusters on the machine are left out.
 */
export function postgresPids(postmasterPid: number): number[] {
  const all = readProcesses(listPids())
  return [...all.values()].filter((p) => p.pid === postmasterPid || (p.ppid === postmasterPid && isPostgres(p))).map((p) => p.pid)
}

/** What a PostgreSQL process does, from its title ("postgres: walwriter" → walwriter; a connection → backend). */
export function postgresRole(process: ProcessTimes, postmasterPid: number | null): string {
  if (process.pid === postmasterPid || !process.title.startsWith('postgres:')) return 'postmaster'
  const title = process.title.slice('postgres:'.length).trim()
  const auxiliary = ['checkpointer', 'background writer', 'walwriter', 'autovacuum launcher', 'autovacuum worker', 'logical replication', 'stats collector', 'archiver', 'walsender', 'parallel worker']
  return auxiliary.find((name) => title.startsWith(name)) ?? 'backend'
}

/**
 * CPU the processes spent between two readings, by group, in clock ticks. A process that
 * started in between counts from zero; one that exited and was waited for by a process of the
 * set (the postmaster reaps its backends) shows up in that parent's children's time, from which
 * what it had already spent at the first reading is taken off.
 */
export function processDelta(
  before: Map<number, ProcessTimes>,
  after: Map<number, ProcessTimes>,
  groupOf: (process: ProcessTimes) => string,
): Map<string, number> {
  const groups = new Map<string, number>()
  const add = (group: string, ticks: number) => groups.set(group, (groups.get(group) ?? 0) + ticks)
  for (const process of after.values()) {
    const earlier = before.get(process.pid)
    add(groupOf(process), process.ticks - (earlier?.ticks ?? 0))
    if (earlier) add(`${groupOf(process)} (exited children)`, process.childTicks - earlier.childTicks)
  }
  for (const gone of before.values()) {
    if (after.has(gone.pid)) continue
    // Its CPU up to the first reading was counted before: take it off its parent's children's time.
    if (after.has(gone.ppid)) add(`${groupOf(after.get(gone.ppid)!)} (exited children)`, -gone.ticks)
  }
  for (const [group, ticks] of groups) if (group.endsWith('(exited children)') && ticks === 0) groups.delete(group)
  return groups
}

export interface ThreadGroupDelta {
  ticks: number
  threads: number
  /** The group's busiest thread, clock ticks. */
  busiestTicks: number
}

/** The name of threads' CPU that /proc no longer lists per thread (they exited during the interval). */
export const EXITED_THREADS = 'exited threads, rounding (process − threads)'

/**
 * CPU a process's threads spent between two readings, by group, in clock ticks. A thread that
 * started in between counts from zero. A thread that exited took its per-thread line with it,
 * but its time stays in the process's total: the difference is reported as EXITED_THREADS
 * (it also absorbs the few ticks by which the kernel's per-thread and per-process roundings differ).
 */
export function threadDelta(before: ProcessThreads, after: ProcessThreads, groupOf: (thread: ThreadTimes) => string): Map<string, ThreadGroupDelta> {
  const groups = new Map<string, ThreadGroupDelta>()
  let threadsTotal = 0
  for (const thread of after.threads.values()) {
    const ticks = thread.ticks - (before.threads.get(thread.tid)?.ticks ?? 0)
    threadsTotal += ticks
    const group = groupOf(thread)
    const entry = groups.get(group) ?? { ticks: 0, threads: 0, busiestTicks: 0 }
    entry.ticks += ticks
    entry.threads += 1
    entry.busiestTicks = Math.max(entry.busiestTicks, ticks)
    groups.set(group, entry)
  }
  const rest = after.ticks - before.ticks - threadsTotal
  if (rest !== 0) groups.set(EXITED_THREADS, { ticks: rest, threads: 0, busiestTicks: 0 })
  return groups
}
