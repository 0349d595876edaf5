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
