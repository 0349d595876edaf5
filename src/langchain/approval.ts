/**
 * Which MCP tools a person approves before they run: the `interruptOn` map of LangChain's
 * `humanInTheLoopMiddleware`, built from the tools' annotations.
 */
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { DecisionType, DescriptionFactory, InterruptOnConfig } from "langchain";
import type { McpTool } from "./McpTool.js";

/** What the approval rule knows of one tool. */
export interface ApprovalCandidate {
  /** The name the model calls it by, the key of `interruptOn`. */
  name: string;
  serverName: string;
  /** Its name on its server. */
  mcpName: string;
  /** The annotations its server listed, trusted or not. */
  annotations?: ToolAnnotations;
  /** Does the toolkit trust its server's annotations (`trustAnnotations`)? */
  trusted: boolean;
}

export interface ApprovalOptions {
  /** The tools the agent is given. @default toolkit.getTools() */
  tools?: readonly McpTool[];
  /**
   * Decides instead of the annotations: `true` to have a person approve the tool's calls.
   * @default needsApproval
   */
  requires?: (tool: ApprovalCandidate) => boolean;
  /** What a person may decide. @default ["approve", "edit", "reject"] */
  allowedDecisions?: DecisionType[];
  /** Shown with each request for approval. Unset, the middleware's own (its `descriptionPrefix`, the tool and the arguments). */
  description?: string | DescriptionFactory;
}

/** What `approvalFor` needs of a toolkit. */
export interface ApprovalSource {
  getTools(): McpTool[];
  trustsAnnotations(serverName: string): boolean;
}

/**
 * The default rule: a tool needs approval unless its server's annotations are trusted and say it
 * cannot destroy anything. MCP annotations are untrusted by default (the spec says so), and their
 * defaults are the cautious ones: `readOnlyHint` false, and then `destructiveHint` true. So a
 * trusted tool runs unasked when it is read-only, or when it is not but says `destructiveHint:
 * false`; an explicit `destructiveHint: true` asks even beside a `readOnlyHint` that contradicts it.
 */
export function needsApproval(tool: Pick<ApprovalCandidate, "annotations" | "trusted">): boolean {
  if (!tool.trusted) return true;
  const { readOnlyHint, destructiveHint } = tool.annotations ?? {};
  if (destructiveHint === true) return true;
  return readOnlyHint !== true && destructiveHint !== false;
}

/**
 * The `interruptOn` map for `humanInTheLoopMiddleware({ interruptOn: approvalFor(toolkit) })`:
 * every tool the agent is given, `true` (or the options' decisions and description) when a person
 * must approve its calls, `false` when it runs unasked. Build it with the agent, from the same
 * tools: a tool the map does not name runs unasked.
 */
export function approvalFor(toolkit: ApprovalSource, options: ApprovalOptions = {}): Record<string, boolean | InterruptOnConfig> {
  const rule = options.requires ?? needsApproval;
  const config: InterruptOnConfig | true =
    options.allowedDecisions || options.description !== undefined
      ? { allowedDecisions: [...(options.allowedDecisions ?? ["approve", "edit", "reject"])], ...(options.description !== undefined ? { description: options.description } : {}) }
      : true;
  const out: Record<string, boolean | InterruptOnConfig> = {};
  for (const tool of options.tools ?? toolkit.getTools()) {
    const { serverName = "", mcpToolName = tool.name, annotations } = tool.metadata;
    const candidate: ApprovalCandidate = {
      name: tool.name,
      serverName,
      mcpName: mcpToolName,
      ...(annotations ? { annotations } : {}),
      trusted: serverName !== "" && toolkit.trustsAnnotations(serverName),
    };
    out[tool.name] = rule(candidate) ? config : false;
  }
  return out;
}
