/**
 * The chaos server over stdio, as a real child process.
 * Env: CHAOS_SEED, CHAOS_LEDGER (a file that keeps per-key counts across restarts),
 * CHAOS_MIX (JSON weights), CHAOS_TRANSIENT_ATTEMPTS, CHAOS_SECRET, CHAOS_SLOW_MS, CHAOS_SLOW_STEP_MS.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { Ledger } from "./ledger.js";
import type { FaultMix } from "./plan.js";
import { buildChaosServer, serveChaos } from "./server.js";

const env = process.env;
const num = (v: string | undefined) => (v === undefined || v === "" ? undefined : Number(v));

const server = buildChaosServer({
  seed: num(env.CHAOS_SEED) ?? 1,
  transport: "stdio",
  ledger: new Ledger(env.CHAOS_LEDGER || undefined),
  ...(env.CHAOS_MIX ? { mix: JSON.parse(env.CHAOS_MIX) as FaultMix } : {}),
  ...(num(env.CHAOS_TRANSIENT_ATTEMPTS) !== undefined ? { transientAttempts: num(env.CHAOS_TRANSIENT_ATTEMPTS)! } : {}),
  ...(num(env.CHAOS_SLOW_MS) !== undefined ? { slowTotalMs: num(env.CHAOS_SLOW_MS)! } : {}),
  ...(num(env.CHAOS_SLOW_STEP_MS) !== undefined ? { slowStepMs: num(env.CHAOS_SLOW_STEP_MS)! } : {}),
  ...(env.CHAOS_SECRET ? { secret: env.CHAOS_SECRET } : {}),
  hooks: {
    exit: (code) => {
      process.stderr.write("chaos: fatal: simulated crash mid-call\n");
      process.exit(code);
    },
    // Pipes are synchronous on Linux, so raw bytes and the SDK's lines never interleave mid-line.
    writeRaw: (data) => {
      process.stdout.write(data);
    },
  },
});
await serveChaos(server, new StdioServerTransport());
// A client that closes our stdin is done with us, and a transport that gave up (a line past
// its read buffer) will not come back: end, as real servers do.
process.stdin.on("end", () => process.exit(0));
server.onclose = () => process.exit(0);
