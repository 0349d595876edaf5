/** Small helpers for the chaos and hostile-input runs: leak probes, a lock, bounded waits. */
import { readFileSync } from "node:fs";

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** This process's children, read from /proc (Linux). */
export function childPids(): number[] {
  try {
    const text = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, "utf8").trim();
    return text ? text.split(/\s+/).map(Number) : [];
  } catch {
    return [];
  }
}

/** Active resources keeping the event loop alive, counted by type. */
export function activeResources(): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of process.getActiveResourcesInfo()) out.set(r, (out.get(r) ?? 0) + 1);
  return out;
}

/** Listeners on `process`, counted by event. */
export function listenerCounts(): Map<string, number> {
  const out = new Map<string, number>();
  for (const name of process.eventNames()) out.set(String(name), process.listenerCount(name));
  return out;
}

/** What `after` holds beyond `before`, as "type +n" lines. */
export function multisetExcess(after: Map<string, number>, before: Map<string, number>): string[] {
  const out: string[] = [];
  for (const [k, n] of after) {
    const extra = n - (before.get(k) ?? 0);
    if (extra > 0) out.push(`${k} +${extra}`);
  }
  return out;
}

export type Settled<T> = { status: "fulfilled"; value: T } | { status: "rejected"; reason: unknown } | { status: "timeout" };

/** Awaits `promise` for at most `ms`, without leaving a timer behind. */
export async function settleWithin<T>(promise: Promise<T>, ms: number): Promise<Settled<T>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Settled<T>>((resolve) => {
    timer = setTimeout(() => resolve({ status: "timeout" }), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        (value): Settled<T> => ({ status: "fulfilled", value }),
        (reason: unknown): Settled<T> => ({ status: "rejected", reason }),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A fair reader-writer lock: shared holders run together; an exclusive holder waits for them
 * to finish and runs alone. Used to run a connection-breaking fault with nothing else in flight.
 */
export class RwLock {
  private readers = 0;
  private writer = false;
  private readonly queue: { exclusive: boolean; grant: () => void }[] = [];

  acquire(exclusive: boolean): Promise<() => void> {
    return new Promise((resolve) => {
      this.queue.push({
        exclusive,
        grant: () => {
          if (exclusive) this.writer = true;
          else this.readers++;
          let released = false;
          resolve(() => {
            if (released) return;
            released = true;
            if (exclusive) this.writer = false;
            else this.readers--;
            this.pump();
          });
        },
      });
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      if (this.writer) return;
      if (head.exclusive && this.readers > 0) return;
      this.queue.shift();
      head.grant();
      if (head.exclusive) return;
    }
  }
}
