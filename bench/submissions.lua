-- wrk script of bench/bench_submissions.py: POSTs the bodies of a file, each with a fresh
-- submission id, and reports the rate of successful responses over the time it was busy.
--
--   wrk -t1 -c8 -d5s -s bench/submissions.lua URL -- FILE MODE FIRST COUNT
--
-- FILE holds one request a line, "path<TAB>body", the body (made by the bench, padded as the
-- respondent page pads it) naming the submission id as ID below, which each request replaces
-- with a fresh random UUID (the same length, so the padding still holds). MODE "cycle" goes
-- round lines FIRST .. FIRST + COUNT - 1 for as long as wrk runs; "once" sends each of them
-- once (a token spent, a survey's first response) and then stops sending.
local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } rr_timespec;
int clock_gettime(int clock, rr_timespec *ts);
]]
local ts = ffi.new("rr_timespec")
local function now()
  ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
end

local ID = "00000000-0000-4000-8000-000000000000"
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

local lines = {}
local mode, turn = "cycle", 0
ok, failed, started, finished, statuses, sent = 0, 0, 0, 0, "", 0
local seen = {}

function init(args)
  local file, first, count = args[1], tonumber(args[3]), tonumber(args[4])
  mode = args[2]
  local index = 0
  for line in io.lines(file) do
    index = index + 1
    if index >= first and index < first + count then
      local tab = line:find("\t", 1, true)
      local body = line:sub(tab + 1)
      local at = body:find(ID, 1, true)
      table.insert(lines, {line:sub(1, tab - 1), body:sub(1, at - 1), body:sub(at + #ID)})
    end
  end
  math.randomseed(tonumber(ffi.cast("long", now() * 1e6) % 2147483647))
  wrk.headers["Content-Type"] = "application/json"
end

local function uuid4()
  local r = math.random
  return string.format("%04x%04x-%04x-4%03x-%x%03x-%04x%04x%04x",
    r(0, 0xffff), r(0, 0xffff), r(0, 0xffff), r(0, 0xfff), r(8, 11), r(0, 0xfff),
    r(0, 0xffff), r(0, 0xffff), r(0, 0xffff))
end

function request()
  if started == 0 then
    started = now()
  end
  turn = turn + 1
  if turn > #lines then
    if mode == "once" then
      wrk.thread:stop()
      -- A request must still be returned, and it is written before the loop stops: the
      -- last line again, with a fresh id (about the same work as the line's).
      turn = #lines
    else
      turn = 1
    end
  end
  -- Every request written, its response counted or not: the server does the work of those
  -- still in flight when wrk stops (its CPU counts them), and the bench divides that CPU by
  -- these.
  sent = sent + 1
  local line = lines[turn]
  return wrk.format("POST", line[1], nil, line[2] .. uuid4() .. line[3])
end

function response(status, headers, body)
  finished = now()
  if status >= 200 and status < 300 then
    ok = ok + 1
  else
    failed = failed + 1
    if not seen[status] then
      seen[status] = true
      statuses = statuses .. status .. " "
    end
  end
end

function done(summary, latency, requests)
  local n_ok, n_failed, n_sent, first, last, codes = 0, 0, 0, nil, 0, ""
  for _, thread in ipairs(threads) do
    n_ok = n_ok + thread:get("ok")
    n_sent = n_sent + thread:get("sent")
    n_failed = n_failed + thread:get("failed")
    local s, f = thread:get("started"), thread:get("finished")
    if s > 0 and (first == nil or s < first) then first = s end
    if f > last then last = f end
    codes = codes .. thread:get("statuses")
  end
  local busy = (first and last > first) and (last - first) or 0
  io.write(string.format(
    'RESULT {"ok": %d, "failed": %d, "sent": %d, "seconds": %.6f, "socket_errors": %d, "statuses": "%s", "p50_ms": %.3f, "p95_ms": %.3f}\n',
    n_ok, n_failed, n_sent, busy,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    codes, latency:percentile(50) / 1000, latency:percentile(95) / 1000))
end
