/**
 * The Lua scripts behind the shared state. Each runs atomically on Redis, so two processes
 * never both see "no test running" and both test. Every key has a TTL, and every time is a
 * duration (PX, PTTL) measured by Redis alone, so the processes' clocks never meet.
 *
 * KEYS, always all five, in one Redis Cluster slot by their `{…}` hash tag:
 *   1 open      exists while the fleet holds calls; its PTTL is the rest of the open period, its
 *               value why: `open` (a failure), `refused` (the server refused the connection: a
 *               process that sees it listen again may test at once) or `test` (a test runs)
 *   2 tripped   the openings since the circuit last closed (they lengthen the open period);
 *               exists from the opening until a test succeeds: an expired `open` means half-open
 *   3 evidence  hash of process id → failures counted since the server last answered
 *   4 wait      exists while the server's Retry-After runs; its PTTL is the rest of the wait
 *   5 window    the calls the breaker's rates are read over (see windowScripts.ts), when a rate is set
 *
 * The open period's length is the client's to decide (src/policy/openPeriod.ts, the process
 * breaker's rule): a script that may open the circuit gets the periods for each count of
 * openings, in ARGV from `PERIODS` on, and takes the one for the count it reads atomically.
 *
 * Every script answers with the state:
 *   { PTTL open, openings (0: closed), EXISTS evidence, PTTL wait, open's value or '' }.
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
  out[#out + 1] = tonumber(redis.call('GET', KEYS[2]) or '0')
  out[#out + 1] = redis.call('EXISTS', KEYS[3])
  out[#out + 1] = redis.call('PTTL', KEYS[4])
  out[#out + 1] = redis.call('GET', KEYS[1]) or ''
  return out
end

-- The open period after trips openings: ARGV[first] is the first's, the last one holds from there on.
local function period(first, trips)
  return ARGV[math.min(first + trips, #ARGV)]
end
`;

export function script(body: string): Script {
  const source = `${STATE}\n${body}`;
  return { source, sha: createHash("sha1").update(source).digest("hex") };
}

/** The state, and nothing else. */
export const SNAPSHOT = script(`return state()`);

/** Where the open periods start in ARGV, in every script that may open the circuit. */
export const PERIODS = { failure: 8, lease: 3 } as const;

/**
 * ARGV: process id, failureThreshold, minProcesses, tripped ms, evidence ms, test (0/1), why
 * (`open` or `refused`), then the periods. While tripped, a failure starts another, longer open
 * period if none runs (a failed test, or a process that fell back to its own breaker);
 * otherwise it is counted, and the fleet opens for the first period once the count reaches the
 * threshold with evidence from at least `minProcesses` processes.
 */
export const FAILURE = script(`
if redis.call('EXISTS', KEYS[2]) == 1 then
  if ARGV[6] == '1' or redis.call('EXISTS', KEYS[1]) == 0 then
    local trips = tonumber(redis.call('GET', KEYS[2]))
    redis.call('SET', KEYS[1], ARGV[7], 'PX', period(${PERIODS.failure}, trips))
    redis.call('SET', KEYS[2], trips + 1, 'PX', ARGV[4])
  end
  return state()
end
redis.call('HINCRBY', KEYS[3], ARGV[1], 1)
redis.call('PEXPIRE', KEYS[3], ARGV[5])
local counts = redis.call('HVALS', KEYS[3])
local total = 0
for _, n in ipairs(counts) do total = total + tonumber(n) end
if total >= tonumber(ARGV[2]) and #counts >= tonumber(ARGV[3]) then
  redis.call('SET', KEYS[1], ARGV[7], 'PX', period(${PERIODS.failure}, 0))
  redis.call('SET', KEYS[2], 1, 'PX', ARGV[4])
  redis.call('DEL', KEYS[3], KEYS[5])
end
return state()
`);

/**
 * ARGV: test (0/1). The server answered: the evidence is void. A test's success closes the
 * fleet, and empties the window of its rates; so does any success once the open period is over,
 * but not one during it, which most likely left before the outage began.
 */
export const HEALTHY = script(`
if ARGV[1] == '1' or redis.call('EXISTS', KEYS[1]) == 0 then
  if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('DEL', KEYS[5]) end
  redis.call('DEL', KEYS[1], KEYS[2])
end
redis.call('DEL', KEYS[3])
return state()
`);

/**
 * ARGV: tripped ms, listens (0/1), then the periods. Answers { 1 } to the one caller that
 * becomes the fleet's test, { 0 } while another tests or the period runs, { 2 } when the
 * fleet is closed; then the state. The test holds the circuit for one open period (the one
 * its failure would start), so a test that never reports ends by itself. `listens`: the caller
 * saw the server that refused the connection listen again, and a `refused` period ends there.
 */
export const LEASE = script(`
local trips = tonumber(redis.call('GET', KEYS[2]) or '0')
if trips == 0 then return state(2) end
local why = redis.call('GET', KEYS[1])
if why and not (ARGV[2] == '1' and why == 'refused') then return state(0) end
redis.call('SET', KEYS[1], 'test', 'PX', period(${PERIODS.lease}, trips))
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return state(1)
`);

/**
 * ARGV: the ping interval, ms. The fleet's turn to ping a server its circuit holds open: { 1 }
 * to one process per interval, { 0 } to the others. One ping a second for the fleet, not one
 * per process.
 */
export const PING_TURN = script(`
if redis.call('SET', KEYS[6], '1', 'NX', 'PX', ARGV[1]) then return { 1 } end
return { 0 }
`);

/**
 * A process's ping was answered: a period the server's failures opened (`open`) ends now, so the
 * next caller of any process takes the test lease. A `refused` one ends when the server listens,
 * and another process's test is not cut short.
 */
export const PINGED = script(`
if redis.call('GET', KEYS[1]) == 'open' then redis.call('DEL', KEYS[1]) end
return state()
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
