import { defineConfig } from "vitest/config";
import { FAULT_SUITES, SHARED } from "./vitest.config.js";

/** `npm run test:faults`: the chaos and restart suites alone (CI runs them after `npm test`). */
export default defineConfig({ test: { ...SHARED, include: FAULT_SUITES } });
