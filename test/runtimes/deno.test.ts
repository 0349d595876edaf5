/** Issue 36: Deno's transport failures classified as Node's (see scenarios.ts). */
import { describeRuntime } from "./scenarios.js";

describeRuntime("deno");
