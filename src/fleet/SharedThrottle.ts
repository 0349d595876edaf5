/**
 * One server's throttle cuts on Redis, one key per server (keys.ts: `…:{name:hash}:throttle`):
 * a hash of the fleet's last cut, `id` (which process's, and its count) and `wMax` (the rate it
 * started from), that expires {@link HORIZON_MS} after the cut. Redis alone counts the time:
 * the cut came `HORIZON_MS − PTTL` ago, so the processes' clocks never meet.
 *
 * A process that cuts shares it here; the script takes it only if the reporter knew the fleet's
 * last cut (or none is left), so the refusals of one burst, met by several processes at once,
 * cut the fleet once. Every process reads the key with the fleet's background refresh and cuts
 * its own rate for a cut it has not seen (Throttle.fleetCut). Calls never wait on Redis: when it
 * is away, each process throttles alone, and the Store reports the outage once.
 */
import { createHash } from "node:crypto";
import type { SharedRate, Throttle } from "../policy/Throttle.js";
import type { Script } from "./scripts.js";
import type { Store } from "./Store.js";

/** How long the fleet remembers its last cut: by then every process's curve is far past it. */
export const HORIZON_MS = 60_000;

function lua(body: string): Script {
  const source = `${body}\nreturn { redis.call('HGET', KEYS[1], 'id') or '', redis.call('HGET', KEYS[1], 'wMax') or '0', redis.call('PTTL', KEYS[1]) }`;
  return { source, sha: createHash("sha1").update(source).digest("hex") };
}

/** KEYS: the throttle key. Answers { id, wMax, PTTL } ('' and -2 when there is no cut). */
const READ = lua("");

/** ARGV: the cut the reporter knew ('' for none), its new id, its wMax, the horizon in ms. */
const CUT = lua(`
local id = redis.call('HGET', KEYS[1], 'id')
if not id or id == ARGV[1] then
  redis.call('HSET', KEYS[1], 'id', ARGV[2], 'wMax', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
end`);

export class SharedThrottle implements SharedRate {
  /** The fleet's last cut this process knows of, and the count of its own. */
  private seen = "";
  private cuts = 0;

  constructor(
    private readonly store: Store,
    private readonly key: string,
    private readonly member: string,
    private readonly throttle: Throttle,
  ) {}

  /** Reads the fleet's last cut, in the background. */
  async refresh(): Promise<void> {
    const reply = await this.store.run(READ, [this.key], []);
    if (reply) this.learn(reply);
  }

  cut(wMax: number): void {
    void this.store.run(CUT, [this.key], [this.seen, `${this.member}:${++this.cuts}`, wMax, HORIZON_MS]).then((reply) => reply && this.learn(reply));
  }

  /** A cut this process has not seen is cut here too; its own (named by its member id) only noted. */
  private learn(reply: unknown[]): void {
    const [id, wMax, pttl] = [String(reply[0] ?? ""), Number(reply[1]), Number(reply[2])];
    if (id === "" || id === this.seen || !(pttl > 0)) return;
    this.seen = id;
    if (!id.startsWith(`${this.member}:`)) this.throttle.fleetCut(HORIZON_MS - pttl, wMax);
  }
}
