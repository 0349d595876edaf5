/**
 * Shared work, as Go's singleflight does it: a caller that asks for a key while work for it is in
 * flight waits for that work instead of starting its own. The work runs under a signal of its own,
 * bound to no caller: each caller waits under its own signal and leaves at once when that aborts,
 * and the work's signal aborts only when the last caller waiting for it has left. Nothing is
 * cached: a key is forgotten the moment its work settles (or is given up), and the next caller
 * starts anew.
 */
import { follow } from "./abort.js";
import { begin } from "./chain.js";

interface Flight<T> {
  readonly promise: Promise<T>;
  /** Aborts the work: only when nobody waits for it any more. */
  readonly controller: AbortController;
  /** The callers still waiting for it. */
  waiting: number;
}

export class Coalescer<T> {
  private readonly flights = new Map<string, Flight<T>>();

  /** How many keys have work in flight. */
  get size(): number {
    return this.flights.size;
  }

  /**
   * Waits for the work in flight under `key`, or starts it with `start(signal)`, under the work's
   * own signal. `joined` tells whether the work was in flight already. `result` settles as the work
   * does, or, when the caller's `signal` aborts first, rejects at once with `left(reason)`.
   */
  join(key: string, start: (signal: AbortSignal) => Promise<T>, signal: AbortSignal | undefined, left: (reason: unknown) => unknown): { result: Promise<T>; joined: boolean } {
    const existing = this.flights.get(key);
    const flight = existing ?? this.start(key, start);
    flight.waiting++;
    return { result: this.wait(key, flight, signal, left), joined: existing !== undefined };
  }

  private start(key: string, start: (signal: AbortSignal) => Promise<T>): Flight<T> {
    const controller = new AbortController();
    const flight: Flight<T> = { promise: begin(() => start(controller.signal)), controller, waiting: 0 };
    this.flights.set(key, flight);
    // Handles the work's rejection too: a flight every caller left still settles, heard by nobody.
    const forget = () => this.forget(key, flight);
    flight.promise.then(forget, forget);
    return flight;
  }

  /**
   * One caller's wait. Its signal is followed through a controller of its own (one listener on a
   * signal many calls share, as a LangGraph step's is: see `follow`).
   */
  private wait(key: string, flight: Flight<T>, signal: AbortSignal | undefined, left: (reason: unknown) => unknown): Promise<T> {
    if (!signal) return flight.promise;
    if (signal.aborted) {
      this.leave(key, flight, signal.reason);
      return Promise.reject(left(signal.reason));
    }
    const own = new AbortController();
    const unfollow = follow(own, signal);
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        unfollow();
        this.leave(key, flight, own.signal.reason);
        reject(left(own.signal.reason));
      };
      own.signal.addEventListener("abort", onAbort, { once: true });
      const done = () => {
        own.signal.removeEventListener("abort", onAbort);
        unfollow();
      };
      flight.promise.then(
        (value) => {
          done();
          resolve(value);
        },
        (error: unknown) => {
          done();
          reject(error);
        },
      );
    });
  }

  /** A caller left: the last one to leave stops the work, and a later caller starts its own rather than join it. */
  private leave(key: string, flight: Flight<T>, reason: unknown): void {
    if (--flight.waiting > 0) return;
    this.forget(key, flight);
    flight.controller.abort(reason);
  }

  private forget(key: string, flight: Flight<T>): void {
    if (this.flights.get(key) === flight) this.flights.delete(key);
  }
}
