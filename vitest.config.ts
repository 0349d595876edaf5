import { defineConfig } from "vitest/config";

/**
 * The fault and long-running suites (chaos: thousands of calls through fault-injecting servers and
 * proxies; restart: real kills and restarts; slow: cases that take a minute by design), run by
 * `npm run test:faults`.
 */
export const FAULT_SUITES = ["test/chaos/**/*.test.ts", "test/restart/**/*.test.ts", "test/slow/**/*.test.ts"];

/** What both runs share: real servers and real processes, so generous limits that a loaded 2-core machine does not flake. */
export const SHARED = { testTimeout: 30_000, hookTimeout: 30_000, pool: "forks", maxWorkers: 2 } as const;

export default defineConfig({
  test: { ...SHARED, include: ["test/**/*.test.ts"], exclude: ["**/node_modules/**", ...FAULT_SUITES] },
});
