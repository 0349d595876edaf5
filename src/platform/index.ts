/**
 * The runtime the library runs on. This file names the Node platform; the runtime-neutral build
 * (tsup.config.ts) resolves it to neutral.ts instead. See types.ts.
 */
export { platform } from "./node.js";
export type { ConfigFiles, Platform, RunContext } from "./types.js";
