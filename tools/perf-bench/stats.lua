-- SPDX-License-Identifier: MIT
-- stats.lua: what report.lua and mix.lua share: a microsecond clock,
-- percentiles of a histogram by wrk's own rule, and the one-line JSON
-- they print their results in. Loaded with dofile() in each of wrk's Lua
-- states; PERF_BENCH_LUA names this folder.

local ffi = require("ffi")
pcall(ffi.cdef, [[
struct perf_timespec { long tv_sec; long tv_nsec; };
int clock_gettime(int clock, struct perf_timespec *ts);
]])

local stats = {}
local CLOCK_MONOTONIC = 1
local ts = ffi.new("struct perf_timespec")

function stats.now_us()
   ffi.C.clock_gettime(CLOCK_MONOTONIC, ts)
   return tonumber(ts.tv_sec) * 1e6 + tonumber(ts.tv_nsec) / 1e3
end

-- Sorted values of a histogram { [value] = count }, and its mean.
function stats.sorted(hist, total)
   local values, sum = {}, 0
   for v, c in pairs(hist) do
      values[#values + 1] = v
      sum = sum + v * c
   end
   table.sort(values)
   return values, total > 0 and sum / total or 0
end

-- The value at percentile p, by wrk's own rule (stats_percentile).
function stats.percentile(values, counts, total, p)
   local rank, seen = math.floor(p / 100 * total + 0.5 + 0.5), 0
   for _, v in ipairs(values) do
      seen = seen + counts[v]
      if seen >= rank then
         return v
      end
   end
   return 0
end

-- The figures of a histogram of microseconds, in milliseconds.
function stats.ms(hist, total)
   local values, mean = stats.sorted(hist, total)
   local function p(x) return stats.percentile(values, hist, total, x) / 1000 end
   return { p50 = p(50), p90 = p(90), p95 = p(95), p99 = p(99), p999 = p(99.9),
            min = total > 0 and values[1] / 1000 or 0,
            max = total > 0 and values[#values] / 1000 or 0, mean = mean / 1000 }
end

-- In a thread, after its n-th answer: at its quota (above 0) it stops,
-- saying so on stderr for perf-bench, and the time is returned.
function stats.stop_at(n, quota)
   if n == quota then
      io.stderr:write("perf-bench-stopped\n")
      wrk.thread:stop()
      return stats.now_us()
   end
end

-- In the main script: microseconds from the threads' first start to their
-- last stop when each stopped at its quota, else nil (wrk's -d ran out).
function stats.span(threads)
   local first, last = math.huge, 0
   for _, thread in ipairs(threads) do
      local stopped = thread:get("stopped")
      if stopped == nil then
         return nil
      end
      first = math.min(first, thread:get("started"))
      last = math.max(last, stopped)
   end
   return last - first
end

function stats.json(fields)
   local parts = {}
   for k, v in pairs(fields) do
      parts[#parts + 1] = string.format("%q:%s", k, type(v) == "table" and stats.json(v) or
         type(v) == "boolean" and tostring(v) or string.format("%.10g", v))
   end
   return "{" .. table.concat(parts, ",") .. "}"
end

return stats
