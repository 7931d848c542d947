-- SPDX-License-Identifier: MIT
-- report.lua: wrk's side of perf-bench. It counts the answers that are not
-- 2xx (and among them the 5xx, the server's own failures), can stop each thread after a number of answers (`-- N`), and at the
-- end prints one line, "perf-bench-result {json}", with the counts and the
-- latency percentiles of every recorded request.
--
-- The percentiles are read from wrk's own histogram (one bin per
-- microsecond, so they are exact), but wrk 4 adds made-up samples to it
-- before done() runs (stats_correct, its coordinated-omission correction
-- for open-loop rates). perf-bench measures closed loops, as the reference
-- did, so raw_histogram() takes those samples out again and checks that
-- doing the correction over gives back wrk's numbers exactly. It reads the
-- histogram through LuaJIT's FFI: wrk's Lua API only offers latency(i),
-- which costs a scan of the histogram per value.
--
-- It must not print anything else on stdout; "perf-bench-stopped" lines go
-- to stderr, one per thread that reached its number of answers.

local ffi = require("ffi")
local stats = dofile(os.getenv("PERF_BENCH_LUA") .. "/stats.lua")
local now_us = stats.now_us

-- ---- in each thread --------------------------------------------------------

function init(args)
   answers, non2xx, status_5xx = 0, 0, 0
   quota = tonumber(args[1]) or 0
   started, stopped = now_us(), nil
end

function response(status)
   answers = answers + 1
   if status < 200 or status > 299 then
      non2xx = non2xx + 1
   end
   if status >= 500 then
      status_5xx = status_5xx + 1
   end
   stopped = stopped or stats.stop_at(answers, quota)
end

-- ---- at the end, in wrk's main script ----------------------------------------

local threads = {}

function setup(thread)
   threads[#threads + 1] = thread
end

-- wrk's histogram as { [microseconds] = count }, with wrk's made-up samples
-- taken out, and the number of samples that remain. `interval` is the one
-- wrk used: the run time over the requests per connection.
local function raw_histogram(latency, interval)
   local s = ffi.cast("uint64_t **", latency)[0] -- count, limit, min, max, data[]
   local min, max = tonumber(s[2]), tonumber(s[3])
   local raw, added, total = {}, {}, 0
   if max < min then
      return raw, 0
   end
   for n = max, min, -1 do
      local c = tonumber(s[4 + n]) - (added[n] or 0)
      if c > 0 then
         raw[n], total = c, total + c
         if interval > 0 and n >= 2 * interval then
            local m = n - interval
            while m > interval do
               added[m] = (added[m] or 0) + c
               m = m - interval
            end
         end
      end
   end
   return raw, total, tonumber(s[0])
end

-- The correction done again on `raw` must give wrk's percentiles back.
local function check_undo(raw, interval, latency)
   local corrected, total = {}, 0
   for n, c in pairs(raw) do
      corrected[n] = (corrected[n] or 0) + c
      total = total + c
      if interval > 0 and n >= 2 * interval then
         local m = n - interval
         while m > interval do
            corrected[m] = (corrected[m] or 0) + c
            total = total + c
            m = m - interval
         end
      end
   end
   local values = stats.sorted(corrected, total)
   for _, p in ipairs({ 50, 90, 99 }) do
      if stats.percentile(values, corrected, total, p) ~= latency:percentile(p) then
         return false
      end
   end
   return true
end

-- Totals over the threads.
local function thread_totals()
   local t = { answers = 0, non2xx = 0, status_5xx = 0 }
   for _, thread in ipairs(threads) do
      t.answers = t.answers + thread:get("answers")
      t.non2xx = t.non2xx + thread:get("non2xx")
      t.status_5xx = t.status_5xx + thread:get("status_5xx")
   end
   return t
end

function done(summary, latency)
   local connections = tonumber(os.getenv("PERF_BENCH_CONNECTIONS")) or 1
   local per_connection = math.floor(summary.requests / connections)
   local interval = per_connection > 0 and math.floor(summary.duration / per_connection) or 0
   local raw, total, wrk_count = raw_histogram(latency, interval)
   local t = thread_totals()
   local duration = stats.span(threads) or summary.duration
   local e = summary.errors
   io.write("perf-bench-result ", stats.json({
      requests = summary.requests, recorded = total, duration_s = duration / 1e6,
      rps = summary.requests / (duration / 1e6), bytes = summary.bytes,
      non2xx = t.non2xx, status_5xx = t.status_5xx, answers = t.answers,
      socket_errors = { connect = e.connect, read = e.read, write = e.write, timeout = e.timeout },
      ms = stats.ms(raw, total),
      wrk_added_samples = (wrk_count or 0) - total,
      undo_checked = check_undo(raw, interval, latency),
   }), "\n")
end
