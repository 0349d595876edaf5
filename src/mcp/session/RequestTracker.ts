/**
 * The attempts under way on one connection, whatever client they went over: the toolkit's close
 * ends them all, and a retired client is let go once those that were under way have ended. What
 * each request of a client is (its id, headers, answer) lives with that client (ClientRequests.ts).
 */
import type { Abortable } from "../call/ClientRequests.js";

export type { Abortable } from "../call/ClientRequests.js";

export class RequestTracker {
  private readonly attempts = new Set<Abortable>();
  /** Waiters for every attempt of a snapshot to leave; rare (a client being retired), so a plain list. */
  private drains: Array<{ pending: Set<Abortable>; done: () => void }> = [];

  /** An attempt begins: until it `leave`s, `endAll` aborts it. */
  enter(attempt: Abortable): void {
    this.attempts.add(attempt);
  }

  leave(attempt: Abortable): void {
    this.attempts.delete(attempt);
    if (this.drains.length > 0) this.left(attempt);
  }

  /** Resolves once every attempt under way now has ended (each is bounded by its own timeout). */
  afterCurrent(): Promise<void> {
    if (this.attempts.size === 0) return Promise.resolve();
    return new Promise((done) => this.drains.push({ pending: new Set(this.attempts), done }));
  }

  private left(attempt: Abortable): void {
    this.drains = this.drains.filter((drain) => {
      drain.pending.delete(attempt);
      if (drain.pending.size > 0) return true;
      drain.done();
      return false;
    });
  }

  /** Aborts every attempt in flight with `reason`. */
  endAll(reason: unknown): void {
    for (const attempt of this.attempts) attempt.abort(reason);
    this.attempts.clear();
    for (const drain of this.drains) drain.done();
    this.drains = [];
  }
}
