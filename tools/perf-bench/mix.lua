-- SPDX-License-Identifier: MIT
-- mix.lua: wrk's side of perf-bench --mix. Each thread sends reads and
-- writes of several kinds in the shares of a plan, and times each answer
-- by its kind; at the end one line, "perf-bench-mix {json}", holds every
-- kind's counts (the answers, those not 2xx, and among them the 5xx) and
-- latency percentiles, and all of them together.
--
-- perf-bench runs one connection per wrk thread, so a thread has one
-- request in flight and its answer is the one it sent last: that is what
-- lets response() know the kind it times. The clock runs from request(),
-- called just before the request is written, to response(), as wrk's own.
--
-- What a thread keeps is in flat tables, since wrk 4.1 crashes copying a
-- table of tables to the main script: the histograms in one, keyed by
-- kind * BIN + microseconds.
--
-- The plan is a file of tab-separated lines (argument 1):
--   kind    NAME  WEIGHT                 a kind of request and its share
--   request NAME  METHOD  PATH  BODY     one of its requests; BODY "-" is none
-- A kind's requests are sent in turn. "{u}" in a body becomes a text no
-- other request has: argument 2 (a tag of the run), the thread and a count.
-- Argument 3, when above 0, stops each thread after that many answers, as
-- report.lua does.

local stats = dofile(os.getenv("PERF_BENCH_LUA") .. "/stats.lua")
local now_us = stats.now_us
local BIN = 1e9 -- microseconds: longer than any answer (wrk's timeout is 10 s)

-- ---- the plan ----------------------------------------------------------------

local function split(line)
   local fields = {}
   for field in (line .. "\t"):gmatch("([^\t]*)\t") do
      fields[#fields + 1] = field
   end
   return fields
end

local function read_plan(path)
   local kinds, by_name = {}, {}
   for line in io.lines(path) do
      local f = split(line)
      if f[1] == "kind" then
         local k = { name = f[2], weight = tonumber(f[3]), requests = {}, turn = 0,
                     number = #kinds + 1 }
         kinds[#kinds + 1], by_name[k.name] = k, k
      elseif f[1] == "request" then
         local r = { method = f[3], path = f[4], body = f[5] ~= "-" and f[5] or nil }
         table.insert(by_name[f[2]].requests, r)
      end
   end
   return kinds
end

-- Kinds in an order that spreads each evenly over a round of the weights'
-- sum (the smooth weighted round robin of nginx's upstreams).
local function schedule_of(kinds)
   local order, current, sum = {}, {}, 0
   for i, k in ipairs(kinds) do
      current[i], sum = 0, sum + k.weight
   end
   for _ = 1, sum do
      local best = 1
      for i, k in ipairs(kinds) do
         current[i] = current[i] + k.weight
         if current[i] > current[best] then
            best = i
         end
      end
      current[best] = current[best] - sum
      order[#order + 1] = kinds[best]
   end
   return order
end

-- A request's text; made once unless its body needs a new "{u}" each time.
local function format(r, unique)
   local headers = {}
   for name, value in pairs(wrk.headers) do
      headers[name] = value
   end
   local body = r.body
   if body then
      headers["Content-Type"] = "application/json"
   end
   if unique then
      body = body:gsub("{u}", unique)
   end
   return wrk.format(r.method, r.path, headers, body)
end

-- ---- in each thread --------------------------------------------------------

function init(args)
   kinds = read_plan(args[1])
   run = args[2] or "0"
   quota = tonumber(args[3]) or 0
   schedule = schedule_of(kinds)
   hist, names, answered, failed, broke = {}, {}, {}, {}, {}
   for _, k in ipairs(kinds) do
      names[k.number], answered[k.number], failed[k.number], broke[k.number] = k.name, 0, 0, 0
      for _, r in ipairs(k.requests) do
         if not (r.body and r.body:find("{u}", 1, true)) then
            r.text = format(r)
         end
      end
   end
   -- Threads start at different places, so that they do not move the same
   -- deal or complete the same task in step.
   slot = (thread_number * 7) % #schedule
   for _, k in ipairs(kinds) do
      k.turn = thread_number % #k.requests
   end
   answers, serial = 0, 0
   started, stopped, sent_kind, sent_at = now_us(), nil, nil, nil
end

function request()
   slot = slot % #schedule + 1
   local k = schedule[slot]
   k.turn = k.turn % #k.requests + 1
   local r = k.requests[k.turn]
   sent_kind, sent_at = k.number, now_us()
   if r.text then
      return r.text
   end
   serial = serial + 1
   return format(r, string.format("%s-%d-%d", run, thread_number, serial))
end

function response(status)
   local key = sent_kind * BIN + math.floor(now_us() - sent_at + 0.5)
   hist[key] = (hist[key] or 0) + 1
   answered[sent_kind] = answered[sent_kind] + 1
   if status < 200 or status > 299 then
      failed[sent_kind] = failed[sent_kind] + 1
   end
   if status >= 500 then
      broke[sent_kind] = broke[sent_kind] + 1
   end
   answers = answers + 1
   stopped = stopped or stats.stop_at(answers, quota)
end

-- ---- at the end, in wrk's main script ----------------------------------------

local threads = {}

function setup(thread)
   threads[#threads + 1] = thread
   thread:set("thread_number", #threads)
end

-- Every thread's histograms and counts added up, by kind and in "all".
local function merged()
   local hists, totals = { all = {} }, { all = { answers = 0, non2xx = 0, status_5xx = 0 } }
   for _, thread in ipairs(threads) do
      local names, answered, failed = thread:get("names"), thread:get("answered"), thread:get("failed")
      local broke = thread:get("broke")
      for key, n in pairs(thread:get("hist")) do
         local name, us = names[math.floor(key / BIN)], key % BIN
         hists[name] = hists[name] or {}
         hists[name][us] = (hists[name][us] or 0) + n
         hists.all[us] = (hists.all[us] or 0) + n
      end
      for number, name in pairs(names) do
         local t = totals[name] or { answers = 0, non2xx = 0, status_5xx = 0 }
         t.answers, t.non2xx = t.answers + answered[number], t.non2xx + failed[number]
         t.status_5xx = t.status_5xx + broke[number]
         totals[name] = t
         totals.all.answers = totals.all.answers + answered[number]
         totals.all.non2xx = totals.all.non2xx + failed[number]
         totals.all.status_5xx = totals.all.status_5xx + broke[number]
      end
   end
   return hists, totals
end

function done(summary)
   local hists, totals = merged()
   local seconds = (stats.span(threads) or summary.duration) / 1e6
   local kinds = {}
   for name, c in pairs(totals) do
      kinds[name] = { answers = c.answers, non2xx = c.non2xx, status_5xx = c.status_5xx,
                      rps = c.answers / seconds,
                      ms = stats.ms(hists[name] or {}, c.answers) }
   end
   local e = summary.errors
   io.write("perf-bench-mix ", stats.json({
      requests = summary.requests, duration_s = seconds, kinds = kinds,
      socket_errors = { connect = e.connect, read = e.read, write = e.write, timeout = e.timeout },
   }), "\n")
end
