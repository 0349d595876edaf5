/**
 * Our toolkit as a client under the MCP conformance suite (`@modelcontextprotocol/conformance`):
 * the suite starts a scenario's server and runs this file with its URL as the last argument.
 * It connects, calls every tool the server offers (with the arguments a scenario's tool needs),
 * and answers every elicitation by accepting the form's defaults.
 */
import { McpToolkit } from "../../src/index.js";

const url = process.argv.at(-1)!;
/** What a scenario's tools need (the suite names the scenario in MCP_CONFORMANCE_SCENARIO). */
const ARGS: Record<string, Record<string, unknown>> = { add_numbers: { a: 5, b: 3 } };
const toolkit = await McpToolkit.connect({
  servers: { scenario: { transport: "http", url, inputHandler: { elicit: async () => ({ action: "accept", content: {} }) } } },
});
try {
  for (const tool of toolkit.getTools()) {
    const reply = await tool.invoke({ id: tool.name, name: tool.name, args: ARGS[tool.name] ?? {}, type: "tool_call" });
    console.log(`${tool.name} [${reply.status}]: ${String(reply.content).slice(0, 300)}`);
  }
} finally {
  await toolkit.close();
}
