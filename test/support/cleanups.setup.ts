/**
 * Runs before every test file (vitest `setupFiles`), so each file gets the hook: see
 * `sharedCleanups`. It also gives `vi.waitFor` a generous default: vitest's 1 s is a guess at
 * the machine's speed, and on a busy 2-core machine a condition that is on its way can take
 * longer. A wait only ends sooner when its condition holds, so a longer limit never lets a wrong
 * result through; it only takes longer to report one. (`expect.poll` gets the same limit from
 * the config's `expect.poll.timeout`.)
 */
import { afterEach, vi } from "vitest";
import { drainSharedCleanups } from "../servers/cleanups.js";

/** The default limit of `vi.waitFor` and `expect.poll`, in milliseconds. */
export const WAIT_TIMEOUT_MS = 10_000;

const waitFor = vi.waitFor.bind(vi);
vi.waitFor = ((callback: Parameters<typeof vi.waitFor>[0], options?: Parameters<typeof vi.waitFor>[1]) =>
  waitFor(callback, typeof options === "number" ? options : { timeout: WAIT_TIMEOUT_MS, ...options })) as typeof vi.waitFor;

afterEach(drainSharedCleanups);
