/**
 * The chaos server over streamable HTTP, in a process of its own, so that a client-side
 * measurement (the soak's heap) does not count the server's memory.
 * Env: CHAOS_SEED, CHAOS_MIX (JSON weights). Prints `listening <url>` on stdout once ready,
 * and closes when its stdin ends.
 */
import type { FaultMix } from "./plan.js";
import { startChaosHttp } from "./http.js";

const env = process.env;
const http = await startChaosHttp({
  seed: env.CHAOS_SEED ? Number(env.CHAOS_SEED) : 1,
  ...(env.CHAOS_MIX ? { mix: JSON.parse(env.CHAOS_MIX) as FaultMix } : {}),
});
process.stdout.write(`listening ${http.url.href}\n`);
process.stdin.resume();
process.stdin.on("end", () => {
  void http.close().finally(() => process.exit(0));
});
