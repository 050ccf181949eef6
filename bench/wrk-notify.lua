-- wrk script of bench/ingest-cpu.ts: POST /notify, cycling through the bodies of a file (one JSON
-- body per line), for a fixed time counted from each thread's first request. After that time a
-- connection sends nothing more once its answer is in (delay() parks it), so no request is left in
-- flight when wrk stops: every event the server stored was answered, and counted here.
--
--   wrk -t1 -c16 -d60s -s bench/wrk-notify.lua http://127.0.0.1:PORT -- BODIES_FILE API_KEY MILLISECONDS SENT_AT
--
-- A thread prints "drained" once every request it sent has its answer (the bench then stops wrk
-- with SIGINT); done() prints one line "bench-result {json}".
local ffi = require('ffi')
ffi.cdef([[
  typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
  int clock_gettime(int clock_id, bench_timespec *tp);
]])
local timespec = ffi.new('bench_timespec')

-- Wall-clock milliseconds (CLOCK_REALTIME), comparable with the bench's Date.now().
local function now_ms()
  ffi.C.clock_gettime(0, timespec)
  return tonumber(timespec.tv_sec) * 1000 + tonumber(timespec.tv_nsec) / 1e6
end

local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set('thread_number', #threads)
end

local requests = {}
local index = 0
local length_ms = 0
local deadline = nil
-- wrk calls request() of its first thread once before starting, to check the request (not sent).
local checked = false

-- Globals, so that done() can read them with thread:get().
sent, ok, non2xx, first_ms, last_ms = 0, 0, 0, 0, 0

function init(args)
  local path, api_key = args[1], args[2]
  length_ms = tonumber(args[3])
  local headers = {
    ['Content-Type'] = 'application/json',
    ['Bugsnag-Api-Key'] = api_key,
    ['Bugsnag-Payload-Version'] = '4',
    ['Bugsnag-Sent-At'] = args[4],
  }
  for body in io.lines(path) do
    if #body > 0 then
      requests[#requests + 1] = wrk.format('POST', '/notify', headers, body)
    end
  end
  if #requests == 0 then
    error('no bodies in ' .. path)
  end
end

function request()
  if thread_number == 1 and not checked then
    checked = true
    return requests[1]
  end
  if deadline == nil then
    first_ms = now_ms()
    deadline = first_ms + length_ms
  end
  index = index % #requests + 1
  sent = sent + 1
  return requests[index]
end

function delay()
  if deadline ~= nil and now_ms() >= deadline then
    return 24 * 3600 * 1000 -- parked: this connection sends nothing more
  end
  return 0
end

function response(status)
  last_ms = now_ms()
  if status >= 200 and status < 300 then
    ok = ok + 1
  else
    non2xx = non2xx + 1
  end
  if last_ms >= deadline and ok + non2xx == sent then
    io.stdout:write('drained\n')
    io.stdout:flush()
    wrk.thread:stop()
  end
end

function done(summary, latency)
  local totals = { sent = 0, ok = 0, non2xx = 0, first_ms = nil, last_ms = 0 }
  for _, thread in ipairs(threads) do
    totals.sent = totals.sent + thread:get('sent')
    totals.ok = totals.ok + thread:get('ok')
    totals.non2xx = totals.non2xx + thread:get('non2xx')
    local first = thread:get('first_ms')
    if first > 0 and (totals.first_ms == nil or first < totals.first_ms) then
      totals.first_ms = first
    end
    totals.last_ms = math.max(totals.last_ms, thread:get('last_ms'))
  end
  local errors = summary.errors
  io.stdout:write(string.format(
    'bench-result {"sent":%d,"ok":%d,"non2xx":%d,"firstMs":%.3f,"lastMs":%.3f,' ..
      '"socketErrors":%d,"timeouts":%d,"latencyP50Us":%d,"latencyP99Us":%d}\n',
    totals.sent, totals.ok, totals.non2xx, totals.first_ms or 0, totals.last_ms,
    errors.connect + errors.read + errors.write, errors.timeout,
    latency:percentile(50), latency:percentile(99)
  ))
  io.stdout:flush()
end
