/**
 * The agent side of the runtime suites, run as it is by `node`, `bun` and `deno run -A`: it
 * connects an McpToolkit over streamable HTTP to the server the test started, calls tools as an
 * agent does, and prints one JSON line per outcome. The plan comes in RUNTIME_PLAN; a step with
 * `wait` prints `{"wait": label}` and reads one line from stdin before it runs, so the test can
 * change the server (stop it, start it) at that point without any timing.
 */
import process from "node:process";
import { createInterface } from "node:readline";
// By its name, as a user imports it: Node, Bun and Deno each resolve it (a self-reference here)
// through the `node` export condition to the Node build.
import { McpToolkit } from "langchain-mcp-errors";

const plan = JSON.parse(process.env.RUNTIME_PLAN ?? "{}");
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const say = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
const fields = (e) => ({ reason: e?.reason, outcome: e?.outcome, kind: e?.kind, transient: e?.transient, attempts: e?.attempts });

const events = [];
let toolkit;
try {
  toolkit = await McpToolkit.connect({ ...plan.config, onEvent: (e) => events.push(e.type) });
} catch (error) {
  say({ connect: fields(error), name: error?.name, message: error?.message });
  process.exit(0);
}
let id = 0;
for (const step of plan.steps ?? []) {
  if (step.wait) {
    say({ wait: step.wait });
    await lines.next();
  }
  const reply = await toolkit.getTool(step.tool).invoke({ type: "tool_call", id: `call-${++id}`, name: step.tool, args: step.args });
  const text = typeof reply.content === "string" ? reply.content : JSON.stringify(reply.content);
  say(reply.status === "error" ? { tool: step.tool, status: "error", ...fields(reply.artifact), message: reply.artifact?.message } : { tool: step.tool, status: "success", content: text });
}
await toolkit.close();
say({ events: events.filter((t) => t === "retry" || t === "circuit_open") });
process.exit(0);
