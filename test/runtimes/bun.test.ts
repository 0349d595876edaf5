/** Issue 36: Bun's transport failures classified as Node's (see scenarios.ts). */
import { describeRuntime } from "./scenarios.js";

describeRuntime("bun");
