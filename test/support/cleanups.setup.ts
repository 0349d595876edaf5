/** Runs before every test file (vitest `setupFiles`), so each file gets the hook: see `sharedCleanups`. */
import { afterEach } from "vitest";
import { drainSharedCleanups } from "../servers/cleanups.js";

afterEach(drainSharedCleanups);
