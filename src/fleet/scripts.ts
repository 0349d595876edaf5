/**
 * The Lua scripts behind the shared state. Each runs atomically on Redis, so two processes
 * never both see "no test running" and both test. Every key has a TTL, and every time is a
 * duration (PX, PTTL) measured by Redis alone, so the processes' clocks never meet.
 *
 * KEYS, always all four, in one Redis Cluster slot by their `{…}` hash tag:
 *   1 open      exists while the fleet refuses calls; its PTTL is the rest of the open period
 *   2 tripped   exists from the opening until a test succeeds: an expired `open` means half-open
 *   3 evidence  hash of process id → failures counted since the server last answered
 *   4 wait      exists while the server's Retry-After runs; its PTTL is the rest of the wait
 *
 * Every script answers with the state: { PTTL open, EXISTS tripped, EXISTS evidence, PTTL wait }.
 */
import { createHash } from "node:crypto";

export interface Script {
  readonly source: string;
  /** The SHA-1 that EVALSHA names it by. */
  readonly sha: string;
}

const STATE = `
local function state(...)
  local out = { ... }
  out[#out + 1] = redis.call('PTTL', KEYS[1])
  out[#out + 1] = redis.call('EXISTS', KEYS[2])
  out[#out + 1] = redis.call('EXISTS', KEYS[3])
  out[#out + 1] = redis.call('PTTL', KEYS[4])
  return out
end
`;

function script(body: string): Script {
  const source = `${STATE}\n${body}`;
  return { source, sha: createHash("sha1").update(source).digest("hex") };
}

/** The state, and nothing else. */
export const SNAPSHOT = script(`return state()`);

/**
 * ARGV: process id, failureThreshold, minProcesses, open ms, tripped ms, evidence ms, test (0/1).
 * While tripped, a failure starts another open period if none runs (a failed test, or a process
 * that fell back to its own breaker); otherwise it is counted, and the fleet opens once the
 * count reaches the threshold with evidence from at least `minProcesses` processes.
 */
export const FAILURE = script(`
if redis.call('EXISTS', KEYS[2]) == 1 then
  if ARGV[7] == '1' or redis.call('EXISTS', KEYS[1]) == 0 then
    redis.call('SET', KEYS[1], 'open', 'PX', ARGV[4])
    redis.call('PEXPIRE', KEYS[2], ARGV[5])
  end
  return state()
end
redis.call('HINCRBY', KEYS[3], ARGV[1], 1)
redis.call('PEXPIRE', KEYS[3], ARGV[6])
local counts = redis.call('HVALS', KEYS[3])
local total = 0
for _, n in ipairs(counts) do total = total + tonumber(n) end
if total >= tonumber(ARGV[2]) and #counts >= tonumber(ARGV[3]) then
  redis.call('SET', KEYS[1], 'open', 'PX', ARGV[4])
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[5])
  redis.call('DEL', KEYS[3])
end
return state()
`);

/**
 * ARGV: test (0/1). The server answered: the evidence is void. A test's success closes the
 * fleet; so does any success once the open period is over, but not one during it, which most
 * likely left before the outage began.
 */
export const HEALTHY = script(`
if ARGV[1] == '1' or redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('DEL', KEYS[1], KEYS[2])
end
redis.call('DEL', KEYS[3])
return state()
`);

/**
 * ARGV: open ms, tripped ms. Answers { 1 } to the one caller that becomes the fleet's test
 * (the open period starts again, so a test that never reports ends by itself), { 0 } while
 * another tests or the period runs, { 2 } when the fleet is closed; then the state.
 */
export const LEASE = script(`
if redis.call('EXISTS', KEYS[2]) == 0 then return state(2) end
if redis.call('EXISTS', KEYS[1]) == 1 then return state(0) end
redis.call('SET', KEYS[1], 'test', 'PX', ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return state(1)
`);

/** A test was cancelled before it learnt anything: the next caller may test at once. */
export const ABANDON = script(`
if redis.call('GET', KEYS[1]) == 'test' then redis.call('DEL', KEYS[1]) end
return state()
`);

/** ARGV: wait ms. Keeps the longer of the running wait and this one. */
export const WAIT = script(`
if redis.call('PTTL', KEYS[4]) < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[4], '1', 'PX', ARGV[1])
end
return state()
`);
