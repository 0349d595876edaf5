/**
 * The fleet's window for the breaker's rates (`failureRate`, `slowCallRate`): the calls of every
 * process, in the fifth key of a server (see scripts.ts), read by the process breaker's rule
 * (src/policy/CallWindow.ts) in one atomic script.
 *
 * A count window is a list, newest first, trimmed to its size: one entry a call, `<failed><slow>
 * <process>` (`10a1b2…`: failed, not slow). A time window is a hash of buckets, as the process's
 * is cut (TIME_BUCKETS of `ms / TIME_BUCKETS` each), by Redis's clock (TIME), so the processes'
 * clocks never meet: `<bucket>:c` counts the calls, `<bucket>:f:<process>` and
 * `<bucket>:s:<process>` that process's failed and slow calls; a bucket past the window is deleted.
 */
import type { DEFAULT_BREAKER } from "../config/index.js";
import { minimumOf, TIME_BUCKETS, type RateRules } from "../policy/CallWindow.js";
import { script } from "./scripts.js";

/** The breaker options the fleet's window reads (`slowCallMs` stays with each process, which times its calls). */
export type FleetRates = Pick<typeof DEFAULT_BREAKER, "minimumCalls" | "window"> & Pick<RateRules, "failureRate" | "slowCallRate">;

/** How long a count window no process adds to is kept: it has no age of its own, and every key has a TTL. */
const COUNT_WINDOW_TTL_MS = 3_600_000;

/** Where the open periods start in RECORD's ARGV. */
const PERIODS_AT = 12;

/**
 * ARGV: process id, failed (0/1), slow (0/1), then {@link windowArgs}, the tripped ms, then the
 * periods. Puts one call in the window (nothing while the fleet's circuit is open or half-open:
 * its test decides), then opens the fleet for the first period once the window holds the
 * minimum of calls and a rate reaches its threshold, its failed (or slow) calls coming from at
 * least `minProcesses` processes, as the consecutive failures must. Opening empties the window.
 */
export const RECORD = script(`
if redis.call('EXISTS', KEYS[2]) == 1 then return state() end
local member = ARGV[1]
local calls, failures, slows = 0, 0, 0
local failing, slowing = {}, {}
if ARGV[4] == 'calls' then
  redis.call('LPUSH', KEYS[5], ARGV[2] .. ARGV[3] .. member)
  redis.call('LTRIM', KEYS[5], 0, tonumber(ARGV[5]) - 1)
  redis.call('PEXPIRE', KEYS[5], ARGV[10])
  for _, entry in ipairs(redis.call('LRANGE', KEYS[5], 0, -1)) do
    local who = string.sub(entry, 3)
    calls = calls + 1
    if string.sub(entry, 1, 1) == '1' then failures = failures + 1; failing[who] = true end
    if string.sub(entry, 2, 2) == '1' then slows = slows + 1; slowing[who] = true end
  end
else
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  local bucket = math.floor(now / (tonumber(ARGV[5]) / ${TIME_BUCKETS}))
  redis.call('HINCRBY', KEYS[5], bucket .. ':c', 1)
  if ARGV[2] == '1' then redis.call('HINCRBY', KEYS[5], bucket .. ':f:' .. member, 1) end
  if ARGV[3] == '1' then redis.call('HINCRBY', KEYS[5], bucket .. ':s:' .. member, 1) end
  redis.call('PEXPIRE', KEYS[5], ARGV[10])
  local fields = redis.call('HGETALL', KEYS[5])
  for i = 1, #fields, 2 do
    local at, kind, who = string.match(fields[i], '^(%d+):(%a):?(.*)$')
    local n = tonumber(fields[i + 1])
    if tonumber(at) <= bucket - ${TIME_BUCKETS} then redis.call('HDEL', KEYS[5], fields[i])
    elseif kind == 'c' then calls = calls + n
    elseif kind == 'f' then failures = failures + n; failing[who] = true
    elseif kind == 's' then slows = slows + n; slowing[who] = true end
  end
end
local function processes(set)
  local n = 0
  for _ in pairs(set) do n = n + 1 end
  return n
end
-- A share, by division, as the process's rule reads it: 3 of 10 meets 0.3.
local function reaches(bad, threshold, who)
  local at = tonumber(threshold)
  return at > 0 and calls > 0 and calls >= tonumber(ARGV[6]) and bad / calls >= at and processes(who) >= tonumber(ARGV[9])
end
if reaches(failures, ARGV[7], failing) or reaches(slows, ARGV[8], slowing) then
  -- 'rate': a server failing some calls answers pings, so no ping ends this period (see PINGED).
  redis.call('SET', KEYS[1], 'rate', 'PX', period(${PERIODS_AT}, 0))
  redis.call('SET', KEYS[2], 1, 'PX', ARGV[11])
  redis.call('DEL', KEYS[3], KEYS[5])
end
return state()
`);

/**
 * RECORD's ARGV 4 to 10, the same for every call to one server: the window's kind and size, the
 * calls it must hold, the two thresholds (0: off), `minProcesses` and the window's TTL.
 */
export function windowArgs(rates: FleetRates, minProcesses: number): (string | number)[] {
  const { window, failureRate, slowCallRate } = rates;
  const [kind, size, ttl] = "calls" in window ? ["calls", window.calls, COUNT_WINDOW_TTL_MS] : ["ms", window.ms, Math.ceil(window.ms + window.ms / TIME_BUCKETS)];
  return [kind, size, minimumOf(rates), failureRate ?? 0, slowCallRate ?? 0, minProcesses, ttl];
}
