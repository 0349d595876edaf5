import type { CallbackManagerForToolRun } from "@langchain/core/callbacks/manager";
import { ToolMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { StructuredTool, ToolInputParsingException, type ToolRunnableConfig } from "@langchain/core/tools";
import { isInteropZodSchema } from "@langchain/core/utils/types";
import type { Schema } from "@cfworker/json-schema";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { isControlFlow } from "../errors/controlFlow.js";
import { isMcpToolError, McpToolError } from "../errors/McpToolError.js";
import { normalize } from "../errors/normalize.js";
import type { Redactor } from "../errors/redactor.js";
import { replyFrom, toModelReply } from "../errors/text.js";
import { begin } from "../policy/chain.js";
import { telemetryOn } from "../telemetry/otel.js";
import { ArgumentCheck } from "./argumentCheck.js";
import { invalidArguments, invalidArgumentsData } from "./argumentData.js";
import { argumentsLine } from "./argumentText.js";
import { toolRunOf, withToolRun, type ToolRun } from "./runEvents.js";

/**
 * Stands in for the real schema while LangChain's `call` validates input we already checked.
 * Not frozen: the validator marks a schema it has dereferenced.
 */
const ACCEPT_ANY = {} as StructuredTool["schema"];

/** What the tool keeps in LangChain's `metadata`. */
export interface McpToolMetadata extends Record<string, unknown> {
  serverName?: string;
  mcpToolName?: string;
  annotations?: ToolAnnotations;
  /** Is repeating this tool harmless, as resolved from config and trusted annotations? */
  idempotent: boolean;
}

/** Runs the call; resolves with what the model reads and the artifact. */
export type ToolExecutor = (args: Record<string, unknown>, config: ToolRunnableConfig | undefined) => Promise<[unknown, unknown]>;

/**
 * Makes the tool's executor, once per tool, given the tool's `failed`: whatever fails in a call
 * (the pipeline, or turning its result into the model's content) goes through `failed`, which
 * throws the redacted copy (or a LangGraph control-flow signal as it was). The executor hands it
 * to the last step it already has, so LangChain's callbacks see the failure classified and
 * redacted with no step of the tool's own added to every call for it.
 */
export type ToolExecutorFactory = (failed: (thrown: unknown) => never) => ToolExecutor;

export interface McpToolFields {
  name: string;
  description: string;
  schema: StructuredTool["schema"];
  metadata: McpToolMetadata;
  /** A normalizer that knows more about this tool's errors (e.g. another adapter's exceptions). */
  normalize?: (error: unknown) => McpToolError;
  execute: ToolExecutorFactory;
  /** How failures reach the caller. @default "return" */
  errorMode?: "return" | "throw";
  /** The one redaction (errors/redactor.ts): what the model reads and what is thrown, with its length options. */
  redactor: Redactor;
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
  override schema: StructuredTool["schema"];
  declare metadata: McpToolMetadata;
  private readonly execute: ToolExecutor;
  private readonly errorMode: "return" | "throw";
  private readonly redactor: Redactor;
  private readonly toError: (error: unknown) => McpToolError;
  /** The input schema's check, compiled on first use. */
  private check: ArgumentCheck | undefined;

  constructor(fields: McpToolFields) {
    super({ responseFormat: "content_and_artifact", verboseParsingErrors: true, metadata: fields.metadata });
    this.name = fields.name;
    this.description = fields.description;
    this.schema = fields.schema;
    this.execute = fields.execute(this.rejected);
    this.errorMode = fields.errorMode ?? "return";
    this.redactor = fields.redactor;
    this.toError = fields.normalize ?? ((error) => normalize(error, { toolName: this.name, ...(this.metadata.serverName ? { serverName: this.metadata.serverName } : {}) }));
  }

  /** Like every tool's `call`, but a failure becomes an error ToolMessage or text. */
  override call(arg: unknown, configArg?: RunnableConfig | unknown): Promise<unknown> {
    // Chained, not awaited: see policy/chain.ts.
    return begin(() => this.validatedCall(arg, configArg)).then(undefined, (thrown: unknown) => this.failed(thrown, arg, configArg));
  }

  /** What `call` settles with when the call failed: an error ToolMessage or text, or a rethrow. */
  private failed(thrown: unknown, arg: unknown, configArg: unknown): unknown {
    // A LangGraph interrupt from an input handler pauses the graph: it is no failure.
    if (isControlFlow(thrown)) throw thrown;
    // The run's callbacks got a redacted copy (see `_call`): the reply is made from it, not
    // cleaned and redacted a second time.
    const text = this.redactor.options;
    if (redactedHere.has(thrown as object)) {
      if (this.errorMode === "throw") throw thrown;
      return this.reply(replyFrom(thrown as McpToolError, { ...text, idempotent: this.metadata.idempotent, toolName: this.name }), arg, configArg);
    }
    const error = this.classify(thrown, arg);
    // A thrown error leaves our hands: whoever catches it (a middleware, a log) gets it redacted.
    if (this.errorMode === "throw") throw this.redactor.error(error);
    return this.reply(toModelReply(error, { ...text, idempotent: this.metadata.idempotent, toolName: this.name }), arg, configArg);
  }

  /** The model's reply: an error ToolMessage for a tool call, else its text. */
  private reply(reply: { text: string; artifact: unknown }, arg: unknown, configArg: unknown): unknown {
    const toolCallId = toolCallIdOf(arg, configArg);
    if (!toolCallId) return reply.text;
    return new ToolMessage({
      status: "error",
      content: reply.text,
      artifact: reply.artifact,
      tool_call_id: toolCallId,
      name: this.name,
      metadata: this.metadata,
    });
  }

  /**
   * LangChain's `call` validates a JSON-Schema input with `validate(input, schema)`, which
   * dereferences the whole schema on every call (about 5 µs for one field, 130 µs for a dozen).
   * Here the schema is compiled once (ArgumentCheck); the input is checked with it, then LangChain's own `call`
   * runs (callbacks, tracing, output formatting exactly as it does them) against a schema that
   * accepts everything, swapped in only for the synchronous stretch in which `call` validates.
   * Were a future LangChain to validate after an await, the real schema would be back by then:
   * slower, never wrong. Kept for issue 33 (measured without it, the 12-field bench tool, paired
   * per round against the swap: in memory CPU per bare call 1.72x (+90 µs), the ToolNode tool
   * window 1.37x (ours/floor 1.24, past 1.15); over stdio CPU per graph step 1.08x, whole step
   * ours/floor 1.03 -> 1.12, past 1.05, on a loaded machine).
   */
  private validatedCall(arg: unknown, configArg: unknown): Promise<unknown> {
    const schema = this.schema;
    if (isInteropZodSchema(schema)) return super.call(arg as never, configArg as never);
    this.check ??= new ArgumentCheck(schema as Schema);
    const given = argsOf(arg);
    // A strict-mode model's `null` for an optional argument is left out (SEP-2243), before the check.
    const args = this.check.prepare(given);
    const found = this.check.found(args);
    // LangChain's exception, so callbacks and callers see what LangChain's own check would raise.
    if (found !== undefined) return Promise.reject(invalidArguments(found.line, found.fields, arg));
    const input = args === given ? arg : isToolCall(arg) ? { ...arg, args } : args;
    this.schema = ACCEPT_ANY;
    try {
      return super.call(input as never, configArg as never);
    } finally {
      this.schema = schema;
    }
  }

  private classify(thrown: unknown, arg: unknown): McpToolError {
    if (isMcpToolError(thrown)) return thrown.toolName === undefined ? thrown.with({ toolName: this.name }) : thrown;
    if (thrown instanceof ToolInputParsingException) {
      return McpToolError.of("invalid_arguments", `Invalid arguments: ${argumentsLine(thrown.message)}`, {
        toolName: this.name,
        ...(this.metadata.serverName ? { serverName: this.metadata.serverName } : {}),
        cause: thrown,
        data: invalidArgumentsData(thrown, argsOf(arg)),
      });
    }
    return this.toError(thrown);
  }

  protected override _call(
    args: Record<string, unknown>,
    runManager?: CallbackManagerForToolRun,
    config?: ToolRunnableConfig,
  ): Promise<[unknown, unknown]> {
    try {
      return this.run(args, runManager, config);
    } catch (thrown) {
      return begin(() => this.rejected(thrown));
    }
  }

  /**
   * What the call rejects with when it failed (the executor's failure handler, see
   * ToolExecutorFactory). What LangChain hands its callbacks (a tracer, a handleToolError) has left
   * our hands: it is the redacted copy, as a thrown error is. Made once per tool.
   */
  private readonly rejected = (thrown: unknown): never => {
    if (isControlFlow(thrown)) throw thrown;
    // Nothing the executor rejects with is a LangChain input error: the arguments are not needed.
    const safe = this.redactor.error(this.classify(thrown, undefined));
    redactedHere.add(safe);
    throw safe;
  };

  private run(args: Record<string, unknown>, runManager: CallbackManagerForToolRun | undefined, config: ToolRunnableConfig | undefined): Promise<[unknown, unknown]> {
    // Only when someone listens (a callback handler, a tracer, OpenTelemetry) is the run carried
    // along in the async context, so that retries, fallbacks, reconnects and progress are
    // reported inside it. A LangGraph stream writer (with `streamProgress`) needs no async context: it hears only
    // the call's progress, which reaches it through the call's config (ToolCall.progressHere).
    // Entering one costs every promise of the call a hook (about 7 µs on a failed call, measured).
    const listening = runManager !== undefined && runManager.handlers.length > 0;
    if (!listening && !telemetryOn()) return this.execute(args, config);
    const run: ToolRun = { ...(listening ? { runManager } : {}), ...toolRunOf(config) };
    return withToolRun(run, () => this.execute(args, config));
  }
}

/** The redacted copies `_call` rejected with: `failed` makes the reply from them as they are. */
const redactedHere = new WeakSet<object>();

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
