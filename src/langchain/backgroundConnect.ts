/**
 * Optional servers that failed to connect, tried again in the background until they come up, the
 * toolkit closes, or (a process that cannot start) {@link START_FAILED_MAX_ATTEMPTS} attempts in
 * a row have failed. Each server has one loop; `refresh()` cuts its wait short, and an attempt
 * under way is shared by whoever asks for one, so a server is never connected twice at once.
 */
import { DEFAULT_RECONNECT, type ReconnectOptions } from "../config/index.js";
import type { Reason } from "../errors/reasons.js";
import { sleep } from "../policy/abort.js";

/**
 * The shortest wait between background attempts, in milliseconds: a `minDelayMs` of 0 (which
 * suits a reconnect before a call) would otherwise retry a refused port in a tight loop.
 */
export const BACKGROUND_MIN_DELAY_MS = 100;

/**
 * The longest wait between background attempts of a server whose process cannot start (its
 * command, package or script is wrong): each attempt runs the command again (with npx, one
 * registry request), and only a person's fix helps, so the waits keep doubling up to 5 minutes.
 */
export const START_FAILED_MAX_DELAY_MS = 300_000;

/**
 * How many connect attempts in a row, the first connect included, an optional server gets when
 * its process cannot start: after the last one fails that way, the background stops trying (with
 * the defaults, some 1.5 s after the first) and only `refresh()`, a person's fix, tries again.
 */
export const START_FAILED_MAX_ATTEMPTS = 5;

/** Failures that only a person's fix ends: the command itself is wrong. */
const CANNOT_START: ReadonlySet<Reason> = new Set(["server_start_failed", "spawn_failed"]);

/**
 * The wait before background attempt `failures + 1`, from the server's `reconnect` backoff:
 * `minDelayMs` doubling up to `maxDelayMs`, as the connection waits before a reconnect, and
 * never less than that wait, so the connection itself has nothing left to wait and an attempt's
 * time is the connect's own. `undefined` when there is no attempt in the background: the server's
 * reconnection is off, or its process could not start at the last of
 * {@link START_FAILED_MAX_ATTEMPTS} attempts in a row. It is then tried only by `refresh()`.
 */
export function backgroundDelay(reconnect: ReconnectOptions | undefined, failures: number, lastReason?: Reason): number | undefined {
  const { enabled, minDelayMs, maxDelayMs } = { ...DEFAULT_RECONNECT, ...reconnect };
  const cannotStart = lastReason !== undefined && CANNOT_START.has(lastReason);
  if (!enabled || (cannotStart && failures >= START_FAILED_MAX_ATTEMPTS)) return undefined;
  const base = Math.max(minDelayMs, BACKGROUND_MIN_DELAY_MS);
  const cap = cannotStart ? Math.max(maxDelayMs, START_FAILED_MAX_DELAY_MS) : maxDelayMs;
  return Math.max(BACKGROUND_MIN_DELAY_MS, Math.min(cap, base * 2 ** Math.min(failures - 1, 30)));
}

interface Loop {
  /** Aborts the current wait: set afresh before each one, so an early wake skips one wait only. */
  wake: AbortController;
  done: Promise<void>;
}

export class BackgroundConnects {
  private readonly loops = new Map<string, Loop>();
  private readonly attempts = new Map<string, Promise<boolean>>();
  private stopped = false;

  /**
   * @param attemptOnce one connect attempt of a server; resolves true once it is connected, and
   *   never rejects.
   * @param delayOf the wait before the next attempt after `failures` failed ones, or `undefined`
   *   for none in the background.
   */
  constructor(
    private readonly attemptOnce: (server: string) => Promise<boolean>,
    private readonly delayOf: (server: string, failures: number) => number | undefined,
    private readonly hooks: {
      /** Told when a server's next attempt is due (epoch ms) as its wait begins, and `undefined` when the wait ends. */
      onWait?: (server: string, at: number | undefined) => void;
      /** Told when a server's loop stops trying after `failures` failed attempts in a row (its `delayOf` said none). */
      onGiveUp?: (server: string, failures: number) => void;
    } = {},
  ) {}

  /** Starts trying `server` again in the background (its first attempt failed), unless it is already. */
  start(server: string): void {
    if (this.stopped || this.loops.has(server) || this.delayOf(server, 1) === undefined) return;
    const loop: Loop = { wake: new AbortController(), done: Promise.resolve() };
    this.loops.set(server, loop);
    loop.done = this.run(server, loop).finally(() => this.loops.delete(server));
  }

  /** One attempt now for each server, joined with one already under way; resolves when all have ended. */
  async now(servers: readonly string[]): Promise<void> {
    await Promise.all(
      servers.map((server) => {
        this.loops.get(server)?.wake.abort();
        return this.attempt(server);
      }),
    );
  }

  /** Ends every wait at once and starts nothing more; resolves when the loops have ended. */
  async close(): Promise<void> {
    this.stopped = true;
    for (const loop of this.loops.values()) loop.wake.abort();
    await Promise.allSettled([...this.loops.values()].map((l) => l.done));
  }

  private async run(server: string, loop: Loop): Promise<void> {
    for (let failures = 1; !this.stopped; failures++) {
      const delay = this.delayOf(server, failures);
      if (delay === undefined) return this.hooks.onGiveUp?.(server, failures);
      loop.wake = new AbortController();
      this.hooks.onWait?.(server, Date.now() + delay);
      // An abort is a wake (refresh) or the end (close); both go on to the check below.
      await sleep(delay, loop.wake.signal).catch(() => undefined);
      this.hooks.onWait?.(server, undefined);
      if (this.stopped || (await this.attempt(server))) return;
    }
  }

  private attempt(server: string): Promise<boolean> {
    let running = this.attempts.get(server);
    if (!running) {
      running = this.attemptOnce(server).finally(() => this.attempts.delete(server));
      this.attempts.set(server, running);
    }
    return running;
  }
}
