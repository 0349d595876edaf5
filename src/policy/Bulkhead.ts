import { isMcpToolError, McpToolError } from "../errors/McpToolError.js";
import { cancelled, type CallContext } from "./abort.js";
import type { AttemptScope } from "./TimeoutPolicy.js";

/**
 * A limit on one server's calls in flight: past `maxConcurrent`, an attempt waits its turn in a
 * queue of at most `maxQueue`, in order; past the queue it fails at once, `bulkhead_full`,
 * unsent. A wait ends with the attempt's own signal (its timeout, the caller's abort), so no
 * call waits past its bounds for a slot.
 */
export class Bulkhead {
  private active = 0;
  private readonly queue: Array<() => void> = [];

  constructor(
    readonly serverName: string,
    readonly maxConcurrent: number,
    readonly maxQueue: number,
  ) {}

  /** Calls in flight now. */
  get inFlight(): number {
    return this.active;
  }

  /** Calls waiting for a slot now. */
  get queued(): number {
    return this.queue.length;
  }

  /**
   * A slot for one attempt: at once while one is free, otherwise when one frees, in order.
   * Rejects with `bulkhead_full` when the queue is full, and with the signal's reason when it
   * aborts first. The returned function gives the slot back; call it once, when the attempt ends.
   */
  acquire(signal: AbortSignal, context: CallContext): Promise<() => void> | (() => void) {
    if (this.active < this.maxConcurrent) {
      this.active++;
      return this.releaser();
    }
    if (this.queue.length >= this.maxQueue) {
      return Promise.reject(
        McpToolError.of(
          "bulkhead_full",
          `Server '${this.serverName}' already has ${this.active} calls in flight and ${this.queue.length} waiting (maxConcurrent ${this.maxConcurrent}, maxQueue ${this.maxQueue}); this call was not sent.`,
          { ...context, serverName: this.serverName },
        ),
      );
    }
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const turn = () => {
        signal.removeEventListener("abort", onAbort);
        this.active++;
        resolve(this.releaser());
      };
      const onAbort = () => {
        const at = this.queue.indexOf(turn);
        if (at >= 0) this.queue.splice(at, 1);
        reject(signal.reason);
      };
      this.queue.push(turn);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.queue.shift()?.();
    };
  }
}

/**
 * Runs an attempt (`send`) once the server's bulkhead gives it a slot, and gives the slot back when
 * it ends. The wait for one is part of the attempt: it ends at the attempt's timeout (or what is left
 * of the call's deadline) and at once on the caller's abort, unsent (and on the toolkit's close,
 * which ends the call holding the slot, and so this call's send).
 */
export function inTurn<T>(bulkhead: Bulkhead, scope: AttemptScope, context: CallContext, n: number, send: () => Promise<T>): Promise<T> {
  const slot = bulkhead.acquire(scope.signal, context);
  if (typeof slot === "function") return send().finally(slot);
  return slot.then(
    (release) => send().finally(release),
    (reason: unknown) => {
      throw isMcpToolError(reason) ? reason.with({ attempts: n }) : queueEnded(bulkhead, scope, context, n, reason);
    },
  );
}

/** A wait for a slot ended by the attempt's timer or the caller: nothing was sent. */
function queueEnded(bulkhead: Bulkhead, scope: AttemptScope, context: CallContext, n: number, reason: unknown): McpToolError {
  if (!scope.timedOut) return cancelled(context, reason, "not_sent").with({ attempts: n });
  const here = { ...context, attempts: n, outcome: "not_sent" as const, cause: reason };
  return McpToolError.of("request_timeout", `The call timed out after ${scope.options.timeoutMs} ms waiting for a turn: server '${bulkhead.serverName}' had as many calls in flight as its maxConcurrent allows.`, here);
}
