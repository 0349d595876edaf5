import { defineConfig } from "vitest/config";

/**
 * The fault and long-running suites (chaos: thousands of calls through fault-injecting servers and
 * proxies; restart: real kills and restarts; slow: cases that take a minute by design), run by
 * `npm run test:faults`.
 */
export const FAULT_SUITES = [
  "test/chaos/**/*.test.ts",
  "test/restart/**/*.test.ts",
  "test/slow/**/*.test.ts",
  // Long by design, where they are (measured in a full run on the loaded 2-core machine, 2026-11-28):
  // MCP Tasks against server-everything's staged long-running task (49 s), rate-limit storms of
  // seconds each (test/network 22 s, test/fleet 17 s), and Redis killed and hung under a fleet (22 s).
  "test/tasks/tasks.test.ts",
  "test/network/throttle.test.ts",
  "test/fleet/throttle.test.ts",
  "test/fleet/fleet.test.ts",
  // Every example run as a user runs it, each in its own tsx process with its servers (14–18 s
  // apiece, 26 s for the file on the quiet machine, and most of two cores while it runs).
  "test/examples.test.ts",
  // Every code block of the README and docs/ run the same way, against embedded servers and a
  // real redis-server (30–40 s on the loaded machine, both cores).
  "test/docs/blocks.test.ts",
];

/**
 * What both runs share: real servers and real processes, so generous limits that a loaded 2-core
 * machine does not flake; and the setup file that closes what shared helpers opened (see
 * `sharedCleanups` in test/servers/cleanups.ts).
 */
export const SHARED = {
  testTimeout: 30_000,
  hookTimeout: 30_000,
  pool: "forks" as const,
  maxWorkers: 2,
  setupFiles: ["./test/support/cleanups.setup.ts"],
  // vitest's 1 s default is a guess at the machine's speed; vi.waitFor gets the same in the setup file.
  expect: { poll: { timeout: 10_000 } },
};

/**
 * Files that run one after another in a worker without a fresh module graph each (`isolate:
 * false`): they import the library and LangChain once per worker instead of once per file. First
 * test/config, test/policy and test/errors (37 files: 58 s to 34 s on the 2-core machine); then
 * every folder but test/telemetry (which sets OpenTelemetry's global providers) and the files at
 * test/'s top (the package, the install, the demo and the examples, each in processes of its own):
 * measured side by side on the quiet machine, test/langchain and test/mcp 55 s to 36 s, the other
 * folders 80 s to 66 s, every test passing both ways.
 */
export const SHARED_MODULES = ["test/*/**/*.test.ts"];
/**
 * Files run each in a fresh process. Besides test/'s top and test/telemetry: the two whose
 * tests count the whole process's handles after close() (timers, sockets). In a shared worker,
 * a timer an earlier file left running (re-armed between the two counts) read as this toolkit's:
 * reconnect.test.ts failed once that way in four fresh-clone CI runs ("Timeout +1"). The likely
 * source, test files whose shared helpers never closed what they opened, is fixed (see
 * `sharedCleanups`); they stay isolated, as a count over the whole process needs.
 */
const ISOLATED = ["test/*.test.ts", "test/telemetry/**/*.test.ts", "test/langchain/reconnect.test.ts", "test/langchain/required.test.ts"];

export default defineConfig({
  test: {
    ...SHARED,
    projects: [
      { extends: true, test: { name: "shared-modules", include: SHARED_MODULES, exclude: ["**/node_modules/**", ...FAULT_SUITES, ...ISOLATED], isolate: false } },
      { extends: true, test: { name: "isolated", include: ISOLATED, exclude: ["**/node_modules/**", ...FAULT_SUITES] } },
    ],
  },
});
