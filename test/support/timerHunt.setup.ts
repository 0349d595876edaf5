/**
 * `npm run test:timers`: which test file left a timer armed. An async hook records the stack that
 * made each timer; after each file, the timers made while it ran that are still armed and holding
 * the process 300 ms later are written to the report, with the test that was running and the
 * stack that made them. Attribution is by time: a timer an earlier file's code made while this
 * file ran is charged to this one, so read the stack, not only the file.
 *
 * Found this way (2026-11-28): a stream resume of the v2 SDK and the eventsource package's
 * reconnect, both outliving close() (test/network/closeTimers.test.ts), and the SDK's timer left
 * when maxTotalTimeout runs out (test/errors/client.e2e.test.ts).
 */
import { createHook } from "node:async_hooks";
import { appendFileSync } from "node:fs";
import { afterAll, beforeAll, expect } from "vitest";

interface Made {
  stack: string;
  file: string | undefined;
  test: string | undefined;
  timer: { hasRef(): boolean; _destroyed?: boolean; _idleTimeout?: number };
}

const REPORT = process.env.TIMER_HUNT_REPORT ?? "timer-hunt.txt";
const state = globalThis as typeof globalThis & { timerHunt?: { made: Map<number, Made>; file?: string } };

function currentTest(): string | undefined {
  try {
    return expect.getState().currentTestName;
  } catch {
    return undefined;
  }
}

// Set up once per worker: with `isolate: false` this file runs again before every test file.
if (!state.timerHunt) {
  const hunt: { made: Map<number, Made>; file?: string } = { made: new Map() };
  state.timerHunt = hunt;
  createHook({
    init(id, type, _trigger, resource) {
      if (type !== "Timeout") return;
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 40;
      const stack = new Error().stack ?? "";
      Error.stackTraceLimit = limit;
      hunt.made.set(id, { stack, file: hunt.file, test: currentTest(), timer: resource as Made["timer"] });
    },
    destroy(id) {
      hunt.made.delete(id);
    },
  }).enable();
}

beforeAll(() => {
  state.timerHunt!.file = expect.getState().testPath;
});

afterAll(async () => {
  const hunt = state.timerHunt!;
  const file = hunt.file;
  await new Promise((resolve) => setTimeout(resolve, 300));
  for (const [id, made] of hunt.made) {
    const { timer } = made;
    if (made.file !== file || !timer.hasRef() || timer._destroyed || timer._idleTimeout === -1) continue;
    const frames = made.stack.split("\n").filter((line) => /^\s+at /.test(line) && !/node:internal|timerHunt\.setup|node_modules\/vitest/.test(line));
    appendFileSync(REPORT, `${file} [${made.test ?? "between tests"}] timer ${id}, ${timer._idleTimeout} ms\n${frames.join("\n")}\n\n`);
  }
});
