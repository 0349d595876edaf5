// Preloaded into @modelcontextprotocol/server-everything, which has no tool with a side effect:
// each execution of the tool RESTART_LEDGER_TOOL is recorded in the RESTART_LEDGER file under
// its argument RESTART_LEDGER_FIELD, before the tool runs, so the harness can count executions
// of the calls it sends as non-idempotent writes. The server's own code and transport are untouched.
// server-everything resolves the same (deduplicated) SDK copy, so this patches its McpServer.
import { appendFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

const { RESTART_LEDGER: file, RESTART_LEDGER_TOOL: tool, RESTART_LEDGER_FIELD: field } = process.env;
const register = McpServer.prototype.registerTool;
McpServer.prototype.registerTool = function (name, config, handler) {
  if (!file || name !== tool) return register.call(this, name, config, handler);
  return register.call(this, name, config, (args, extra) => {
    appendFileSync(file, `${args[field]}\n`);
    return handler(args, extra);
  });
};
