import type { McpEvent } from "../events.js";
import type { RunScript } from "./redis.js";
import type { Script } from "./scripts.js";
import { withDeadline } from "../policy/abort.js";

/** What a script that did not answer within its deadline settles as. */
const LATE = { late: true } as const;

/**
 * Commands sent and not yet settled, at most. A client with an offline queue (ioredis's
 * default) holds commands while Redis is down, and a stopped Redis holds them in its socket:
 * past this many, nothing more is sent until some settle, so a long outage costs no memory.
 */
const MAX_OUTSTANDING = 16;

/**
 * The user's Redis, as the shared state sees it: every command ends within its deadline,
 * resolving with the reply or with undefined (an error, a timeout, too many outstanding), and
 * never rejects. Whether Redis is `available` is learnt from these outcomes, and each change is
 * reported once as a `shared_state` event: never as an error of a call.
 */
export class Store {
  /** Did the last command that settled or ran out of time succeed? Unknown before the first. */
  private known: boolean | undefined;
  private outstanding = 0;

  constructor(
    private readonly runScript: RunScript,
    private readonly timeoutMs: number,
    private readonly emit: (event: McpEvent) => void,
  ) {}

  /**
   * Runs `script`. A `deadlineMs` shorter than the command timeout is a caller's own patience
   * (a half-open lease): missing it says nothing about Redis, so it leaves `available` alone.
   * A `verdict` (the fleet's test's) is sent past the limit on outstanding commands: there is
   * one per open period, and without it the fleet would wait for the test's lease to run out.
   */
  async run(script: Script, keys: readonly string[], args: readonly (string | number)[], deadlineMs = this.timeoutMs, verdict = false): Promise<unknown[] | undefined> {
    if (this.outstanding >= MAX_OUTSTANDING && !verdict) return undefined;
    this.outstanding++;
    let sent: Promise<unknown>;
    try {
      sent = this.runScript(script, keys, args);
    } catch (error) {
      sent = Promise.reject(error);
    }
    const settled = sent.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    void settled.finally(() => this.outstanding--);
    const outcome = await withDeadline(deadlineMs, undefined, () => settled, () => LATE).catch(() => LATE);
    if ("late" in outcome) {
      if (deadlineMs >= this.timeoutMs) this.down("timeout");
      return undefined;
    }
    if ("error" in outcome) {
      this.down(describeError(outcome.error));
      return undefined;
    }
    this.up();
    return Array.isArray(outcome.value) ? outcome.value : undefined;
  }

  get available(): boolean {
    return this.known === true;
  }

  private up(): void {
    if (this.known === true) return;
    this.known = true;
    this.emit({ type: "shared_state", status: "available" });
  }

  private down(detail: string): void {
    if (this.known === false) return;
    this.known = false;
    this.emit({ type: "shared_state", status: "unavailable", detail });
  }
}

/** The client's error as a short line: its name and message, cut, never its stack. */
function describeError(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
