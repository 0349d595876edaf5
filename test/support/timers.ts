/**
 * Records the timers made from now on, each with the stack that made it, so a test or a
 * diagnostic can tell which are still armed and who made them. Shared by
 * test/network/closeTimers.test.ts and `npm run test:timers` (timerHunt.setup.ts).
 */
import { createHook } from "node:async_hooks";

export interface MadeTimer<T> {
  stack: string;
  /** What the caller attached when the timer was made (the file and test running, for the hunt). */
  context: T;
  timer: { hasRef(): boolean; _destroyed?: boolean; _idleTimeout?: number };
}

export interface TimerRecord<T> {
  /** The timers made since recording began that have not fired or been cleared, by async id. */
  readonly made: Map<number, MadeTimer<T>>;
  /** Is this timer still armed and holding the process open? */
  armed(made: MadeTimer<T>): boolean;
  stop(): void;
}

export function recordTimers<T = undefined>(context: () => T = () => undefined as T): TimerRecord<T> {
  const made = new Map<number, MadeTimer<T>>();
  const hook = createHook({
    init(id, type, _trigger, resource) {
      if (type !== "Timeout") return;
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 40;
      const stack = new Error().stack ?? "";
      Error.stackTraceLimit = limit;
      made.set(id, { stack, context: context(), timer: resource as MadeTimer<T>["timer"] });
    },
    destroy(id) {
      made.delete(id);
    },
  }).enable();
  return {
    made,
    armed: ({ timer }) => timer.hasRef() && !timer._destroyed && timer._idleTimeout !== -1,
    stop: () => void hook.disable(),
  };
}
