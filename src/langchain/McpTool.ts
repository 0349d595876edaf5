import type { CallbackManagerForToolRun } from "@langchain/core/callbacks/manager";
import { ToolMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { StructuredTool, ToolInputParsingException, type ToolRunnableConfig } from "@langchain/core/tools";
import type { JSONSchema } from "@langchain/core/utils/json_schema";
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { McpToolError } from "../errors/McpToolError.js";
import { normalize } from "../errors/normalize.js";
import { toModelText, toSafeJSON, type ModelTextOptions } from "../errors/text.js";
import { convertResult, type ConvertedResult } from "../mcp/content.js";

/** What the tool keeps in LangChain's `metadata`. */
export interface McpToolMetadata extends Record<string, unknown> {
  serverName: string;
  mcpToolName: string;
  annotations?: ToolAnnotations;
  /** Is repeating this tool harmless, as resolved from config and trusted annotations? */
  idempotent: boolean;
}

/** Runs the call; resolves with the result and, when a fallback answered, who and why. */
export type ToolExecutor = (
  args: Record<string, unknown>,
  signal: AbortSignal | undefined,
) => Promise<{ result: CallToolResult; fallback?: { from: string; reason: string } }>;

export interface McpToolFields {
  name: string;
  description: string;
  schema: JSONSchema;
  metadata: McpToolMetadata;
  execute: ToolExecutor;
  /** How failures reach the caller. @default "return" */
  errorMode?: "return" | "throw";
  /** Redaction and length options for model text. */
  text: () => ModelTextOptions;
}

/** Carries a classified failure from `_call` to `call`, past LangChain's callbacks. */
class ToolFailure extends Error {
  constructor(readonly error: McpToolError) {
    super(error.message, { cause: error });
  }
}

/**
 * A LangChain tool backed by an MCP tool. It never throws for a failed call (unless
 * `errorMode` is `"throw"`): the model gets an error ToolMessage with the classified error
 * as its artifact.
 */
export class McpTool extends StructuredTool {
  static override lc_name(): string {
    return "McpTool";
  }

  override name: string;
  override description: string;
  override schema: JSONSchema;
  declare metadata: McpToolMetadata;
  private readonly execute: ToolExecutor;
  private readonly errorMode: "return" | "throw";
  private readonly text: () => ModelTextOptions;

  constructor(fields: McpToolFields) {
    super({ responseFormat: "content_and_artifact", verboseParsingErrors: true, metadata: fields.metadata });
    this.name = fields.name;
    this.description = fields.description;
    this.schema = fields.schema;
    this.execute = fields.execute;
    this.errorMode = fields.errorMode ?? "return";
    this.text = fields.text;
  }

  /** Like every tool's `call`, but a failure becomes an error ToolMessage or text. */
  override async call(arg: unknown, configArg?: RunnableConfig | unknown): Promise<unknown> {
    try {
      // eslint-disable-next-line @typescript-eslint/no-deprecated
      return await super.call(arg as never, configArg as never);
    } catch (thrown) {
      const error = this.classify(thrown, arg);
      if (this.errorMode === "throw") throw error;
      const textOptions = { ...this.text(), idempotent: this.metadata.idempotent, toolName: this.name };
      const content = toModelText(error, textOptions);
      const toolCallId = toolCallIdOf(arg, configArg);
      if (!toolCallId) return content;
      return new ToolMessage({
        status: "error",
        content,
        artifact: toSafeJSON(error, textOptions),
        tool_call_id: toolCallId,
        name: this.name,
        metadata: this.metadata,
      });
    }
  }

  private classify(thrown: unknown, arg: unknown): McpToolError {
    if (thrown instanceof ToolFailure) return thrown.error;
    if (thrown instanceof ToolInputParsingException) {
      const details = thrown.message.replace(/^Received tool input did not match expected schema\s*/, "").replace(/^Details:\s*/, "");
      return McpToolError.of("invalid_arguments", `The arguments do not match the tool's input schema. ${details}`.trim(), {
        toolName: this.name,
        serverName: this.metadata.serverName,
        cause: thrown,
        data: { received: typeof argsOf(arg) },
      });
    }
    return normalize(thrown, { toolName: this.name, serverName: this.metadata.serverName });
  }

  protected override async _call(
    args: Record<string, unknown>,
    _runManager?: CallbackManagerForToolRun,
    config?: ToolRunnableConfig,
  ): Promise<[ConvertedResult["content"], ConvertedResult["artifact"]]> {
    try {
      const { result, fallback } = await this.execute(args, config?.signal);
      const converted = convertResult(result);
      if (!fallback) return [converted.content, converted.artifact];
      const note = `[The primary server failed (${fallback.reason}); this answer came from the fallback ${fallback.from}.]`;
      const content = typeof converted.content === "string" ? `${note}\n${converted.content}` : [{ type: "text" as const, text: note }, ...converted.content];
      return [content, { ...converted.artifact, fallback }];
    } catch (error) {
      throw new ToolFailure(normalize(error, { toolName: this.name, serverName: this.metadata.serverName }));
    }
  }
}

function argsOf(arg: unknown): unknown {
  return isToolCall(arg) ? arg.args : arg;
}

function isToolCall(arg: unknown): arg is { id?: string; args: unknown; type?: string } {
  return typeof arg === "object" && arg !== null && "args" in arg && (arg as { type?: unknown }).type === "tool_call";
}

function toolCallIdOf(arg: unknown, config: unknown): string | undefined {
  if (isToolCall(arg) && typeof arg.id === "string") return arg.id;
  const id = (config as { toolCall?: { id?: unknown } } | undefined)?.toolCall?.id;
  return typeof id === "string" ? id : undefined;
}
