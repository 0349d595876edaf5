import { defineConfig } from "vitest/config";
import { FAULT_SUITES, SHARED, SHARED_MODULES } from "./vitest.config.js";

/**
 * `npm run test:timers`: the shared-modules files, and the two that count handles, in workers
 * that are not reset between files, each file followed by a list of the timers it left armed
 * (test/support/timerHunt.setup.ts; the report goes to timer-hunt.txt, or $TIMER_HUNT_REPORT).
 * A diagnostic, not a gate: CI does not run it.
 */
export default defineConfig({
  test: {
    ...SHARED,
    include: [...SHARED_MODULES, "test/langchain/reconnect.test.ts", "test/langchain/required.test.ts"],
    exclude: ["**/node_modules/**", ...FAULT_SUITES],
    isolate: false,
    setupFiles: ["./test/support/cleanups.setup.ts", "./test/support/timerHunt.setup.ts"],
  },
});
