/**
 * `npm run test:timers`: which test file left a timer armed. An async hook records the stack that
 * made each timer; after each file, the timers made while it ran that are still armed and holding
 * the process 300 ms later are written to the report, with the test that was running and the
 * stack that made them. Attribution is by time: a timer an earlier file's code made while this
 * file ran is charged to this one, so read the stack, not only the file.
 *
 * Found this way (2026-11-28): a stream resume of the v2 SDK and the eventsource package's
 * reconnect, both outliving close() (test/network/closeTimers.test.ts), and the SDK's timer left
 * when maxTotalTimeout runs out (test/errors/client.e2e.test.ts); and test files whose shared
 * helpers never closed what they opened (see `sharedCleanups` in test/servers/cleanups.ts).
 */
import { appendFileSync } from "node:fs";
import { afterAll, beforeAll, expect } from "vitest";
import { recordTimers, type TimerRecord } from "./timers.js";

interface Made {
  file: string | undefined;
  test: string | undefined;
}

const REPORT = process.env.TIMER_HUNT_REPORT ?? "timer-hunt.txt";
const state = globalThis as typeof globalThis & { timerHunt?: { record: TimerRecord<Made>; file?: string } };

function currentTest(): string | undefined {
  try {
    return expect.getState().currentTestName;
  } catch {
    return undefined;
  }
}

// Set up once per worker: with `isolate: false` this file runs again before every test file.
if (!state.timerHunt) {
  const made = (): Made => ({ file: state.timerHunt?.file, test: currentTest() });
  state.timerHunt = { record: recordTimers(made) };
}

beforeAll(() => {
  state.timerHunt!.file = expect.getState().testPath;
});

afterAll(async () => {
  const { record, file } = state.timerHunt!;
  await new Promise((resolve) => setTimeout(resolve, 300));
  for (const [id, made] of record.made) {
    if (made.context.file !== file || !record.armed(made)) continue;
    const frames = made.stack.split("\n").filter((line) => /^\s+at /.test(line) && !/node:internal|support\/timers|timerHunt\.setup|node_modules\/vitest/.test(line));
    appendFileSync(REPORT, `${file} [${made.context.test ?? "between tests"}] timer ${id}, ${made.timer._idleTimeout} ms\n${frames.join("\n")}\n\n`);
  }
});
