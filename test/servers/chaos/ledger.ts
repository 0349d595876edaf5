/**
 * What the chaos server saw per request key: arrivals (attempts), executions (the tool's
 * side effect ran) and cancellations it observed. A stdio server appends every event to a
 * file, so the counts survive the process exiting mid-call and being started again.
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";

export interface LedgerCounts {
  arrivals: number;
  executions: number;
  cancelled: number;
}

type Event = "a" | "x" | "c";

export class Ledger {
  private readonly counts = new Map<string, LedgerCounts>();

  /** @param file When given, events are appended here and read back at start. */
  constructor(private readonly file?: string) {
    if (file && existsSync(file)) this.load(readFileSync(file, "utf8"));
  }

  /** Reads a ledger file written by another process. */
  static read(file: string): Ledger {
    const ledger = new Ledger();
    if (existsSync(file)) ledger.load(readFileSync(file, "utf8"));
    return ledger;
  }

  /** Counts one arrival and returns its attempt number (1-based). */
  arrive(key: string): number {
    return this.record("a", key).arrivals;
  }

  /** The attempt number of the latest arrival (0 if none). */
  attempt(key: string): number {
    return this.counts.get(key)?.arrivals ?? 0;
  }

  executed(key: string): void {
    this.record("x", key);
  }

  cancelled(key: string): void {
    this.record("c", key);
  }

  get(key: string): LedgerCounts {
    return this.counts.get(key) ?? { arrivals: 0, executions: 0, cancelled: 0 };
  }

  keys(): string[] {
    return [...this.counts.keys()];
  }

  /** Drops a finished key, so a long soak does not grow the ledger. */
  forget(key: string): void {
    this.counts.delete(key);
  }

  get size(): number {
    return this.counts.size;
  }

  private record(event: Event, key: string): LedgerCounts {
    // Written before the counter moves: a process that exits right after still left its trace.
    if (this.file) appendFileSync(this.file, `${event} ${encodeURIComponent(key)}\n`);
    return this.bump(event, key);
  }

  private bump(event: Event, key: string): LedgerCounts {
    let c = this.counts.get(key);
    if (!c) {
      c = { arrivals: 0, executions: 0, cancelled: 0 };
      this.counts.set(key, c);
    }
    if (event === "a") c.arrivals++;
    else if (event === "x") c.executions++;
    else c.cancelled++;
    return c;
  }

  private load(text: string): void {
    for (const line of text.split("\n")) {
      const [event, key] = line.split(" ");
      if ((event === "a" || event === "x" || event === "c") && key !== undefined) this.bump(event, decodeURIComponent(key));
    }
  }
}
