/**
 * The Coalescer alone (policy/Coalescer.ts): callers of one key share one piece of work, each
 * leaves on its own signal, and the work's own signal aborts only when the last caller has left.
 * Nothing is kept once the work settles.
 */
import { describe, expect, it } from "vitest";
import { Coalescer } from "../../src/policy/Coalescer.js";

/** Work that settles when the test says, and remembers the signal it ran under. */
function work() {
  const runs: { signal: AbortSignal; resolve: (value: string) => void; reject: (error: unknown) => void }[] = [];
  const start = (signal: AbortSignal) => new Promise<string>((resolve, reject) => runs.push({ signal, resolve, reject }));
  return { runs, start };
}

const left = (reason: unknown) => new Error(`left: ${String((reason as Error).message)}`);

describe("a Coalescer", () => {
  it("runs the work once for every caller of the key while it is in flight, and forgets it once it settles", async () => {
    const flights = new Coalescer<string>();
    const { runs, start } = work();
    const first = flights.join("k", start, undefined, left);
    const second = flights.join("k", start, new AbortController().signal, left);
    const other = flights.join("other", start, undefined, left);
    expect([first.joined, second.joined, other.joined]).toEqual([false, true, false]);
    expect(runs).toHaveLength(2);
    expect(flights.size).toBe(2);
    runs[0]!.resolve("answer");
    await expect(Promise.all([first.result, second.result])).resolves.toEqual(["answer", "answer"]);
    expect(flights.size).toBe(1);
    // No cache: the next caller starts the work again.
    expect(flights.join("k", start, undefined, left).joined).toBe(false);
    expect(runs).toHaveLength(3);
  });

  it("lets a caller leave at once on its own abort, without stopping the work the others wait for", async () => {
    const flights = new Coalescer<string>();
    const { runs, start } = work();
    const leaving = new AbortController();
    const first = flights.join("k", start, leaving.signal, left);
    const staying = flights.join("k", start, new AbortController().signal, left);
    leaving.abort(new Error("bye"));
    await expect(first.result).rejects.toThrow("left: bye");
    expect(runs[0]!.signal.aborted).toBe(false);
    runs[0]!.resolve("answer");
    await expect(staying.result).resolves.toBe("answer");
  });

  it("aborts the work when the last caller leaves, and a caller after that starts its own", async () => {
    const flights = new Coalescer<string>();
    const { runs, start } = work();
    const callers = [new AbortController(), new AbortController()];
    const waits = callers.map((c) => flights.join("k", start, c.signal, left).result);
    callers[0]!.abort(new Error("one"));
    expect(runs[0]!.signal.aborted).toBe(false);
    callers[1]!.abort(new Error("two"));
    await expect(Promise.allSettled(waits)).resolves.toMatchObject([{ status: "rejected" }, { status: "rejected" }]);
    expect(runs[0]!.signal.aborted).toBe(true);
    expect((runs[0]!.signal.reason as Error).message).toBe("two");
    expect(flights.size).toBe(0);
    const next = flights.join("k", start, undefined, left);
    expect(next.joined).toBe(false);
    runs[0]!.reject(new Error("stopped"));
    runs[1]!.resolve("fresh");
    await expect(next.result).resolves.toBe("fresh");
  });

  it("hands every caller the work's failure, and a caller already aborted leaves before waiting", async () => {
    const flights = new Coalescer<string>();
    const { runs, start } = work();
    const first = flights.join("k", start, undefined, left);
    const aborted = new AbortController();
    aborted.abort(new Error("gone"));
    await expect(flights.join("k", start, aborted.signal, left).result).rejects.toThrow("left: gone");
    expect(runs[0]!.signal.aborted).toBe(false);
    runs[0]!.reject(new Error("failed"));
    await expect(first.result).rejects.toThrow("failed");
    expect(flights.size).toBe(0);
  });
});
