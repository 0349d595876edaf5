/**
 * How a server's newly listed tools become LangChain tools: which are offered (toolFilter.ts),
 * the name each is exposed under (unique: toolNames.ts), and the McpTool built around its runtime
 * and policy. Kept apart from McpToolkit, which decides when tools join or leave and keeps the
 * list the model sees: building a tool reads the config and the caller, never that list's history.
 */
import type { JSONSchema } from "@langchain/core/utils/json_schema";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_ERROR_OPTIONS, type McpToolkitConfig } from "../config/index.js";
import type { Redactor } from "../errors/redactor.js";
import type { Connection } from "../mcp/session/Connection.js";
import { withoutKeyProperty } from "./idempotencyKey.js";
import { McpTool } from "./McpTool.js";
import type { ToolRuntime } from "./toolCall.js";
import type { ToolCaller } from "./toolCaller.js";
import { isOffered } from "./toolFilter.js";
import { exposedNames } from "./toolNames.js";

/** A tool a toolkit exposed, with the name a clash may have changed. */
export interface BuiltTool {
  server: string;
  name: string;
  mcpName: string;
  renamed: boolean;
}

/** What the builder shares with its toolkit. */
export interface ToolBuilderParts {
  config: McpToolkitConfig;
  connections: ReadonlyMap<string, Connection>;
  caller: ToolCaller;
  /** The toolkit's one redaction, with the length options of model text. */
  redactor: Redactor;
}

export class ToolBuilder {
  constructor(private readonly parts: ToolBuilderParts) {}

  /**
   * Names the servers' tools not built yet (unique among the tools `exposed` already and each
   * other) and builds each tool's runtime and policy once; `offer` receives each new tool, in
   * order. Returns the tools it exposed.
   */
  build(newServers: string[], exposed: readonly McpTool[], offer: (tool: McpTool, runtime: ToolRuntime) => void): BuiltTool[] {
    const { config, connections, caller } = this.parts;
    const incoming: { server: string; tool: Tool }[] = [];
    for (const server of newServers) {
      for (const tool of connections.get(server)!.tools) {
        if (caller.has(server, tool.name)) continue;
        if (isOffered(config, server, tool)) incoming.push({ server, tool });
        // A hidden tool is still known: a fallback may call it, and it is not offered later.
        else caller.runtimeFor(server, tool, tool.name);
      }
    }
    const names = exposedNames(incoming, new Set(exposed.map((t) => t.name)), config.prefixToolNames === true);
    return incoming.map(({ server, tool }, i) => {
      const { name, renamed } = names[i]!;
      const runtime = caller.runtimeFor(server, tool, name);
      offer(this.makeTool(server, tool, name, runtime), runtime);
      return { server, name, mcpName: tool.name, renamed };
    });
  }

  private makeTool(server: string, tool: Tool, name: string, runtime: ToolRuntime): McpTool {
    const schema = tool.inputSchema ?? { type: "object" as const, properties: {} };
    return new McpTool({
      name,
      description: tool.description ?? tool.title ?? tool.name,
      // The key is the toolkit's to make: the model neither sees its property nor may be asked for it.
      schema: (runtime.keyProperty !== undefined ? withoutKeyProperty(schema, runtime.keyProperty) : schema) as JSONSchema,
      metadata: {
        serverName: server,
        mcpToolName: tool.name,
        idempotent: runtime.policy.idempotent,
        ...(tool.annotations ? { annotations: tool.annotations } : {}),
      },
      execute: this.parts.caller.executor(runtime),
      errorMode: this.parts.config.errors?.mode ?? DEFAULT_ERROR_OPTIONS.mode,
      redactor: this.parts.redactor,
    });
  }
}

/** The exposed tools a clash renamed, as a `tools_changed` event reports them. */
export function renamedOf(built: readonly BuiltTool[]): { name: string; mcpName: string }[] {
  return built.filter((t) => t.renamed).map(({ name, mcpName }) => ({ name, mcpName }));
}
