import { afterEach } from "vitest";

/**
 * A list of closers that runs after each test, last opened first, so every server, process
 * and toolkit a test opens is closed even when an assertion fails.
 */
export function closeAfterEach(): (() => Promise<void>)[] {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });
  return cleanups;
}

/**
 * The closers of helper modules that many test files import (test/network/helpers.ts,
 * test/runtimes/scenarios.ts). A module-level `closeAfterEach()` registers its hook only for the
 * first file that imports the module when files share a worker's modules (`isolate: false`):
 * every later file's toolkits, servers and proxies stayed open, and the timer hunt
 * (`npm run test:timers`) showed their timers. This list is drained after each test by
 * test/support/cleanups.setup.ts, which vitest runs before every file.
 */
export const sharedCleanups: (() => Promise<void>)[] = [];

export async function drainSharedCleanups(): Promise<void> {
  while (sharedCleanups.length) await sharedCleanups.pop()!();
}
