/**
 * Input a server asks for during a tool call: an elicitation (a form, or a URL for a person to
 * visit) or a model completion (sampling). In the 2025 era the server sends it as a request of
 * its own while the call is in flight; in 2026-07-28 it answers the call with `input_required`
 * and the call is sent again with the answers. The toolkit runs those rounds itself, in the
 * tool call's own async context, so a handler may pause a LangGraph run with `interrupt()`.
 */
import type { Client, ClientCapabilities, CreateMessageRequest, ElicitRequest, ElicitResult } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { InputContext, InputHandler } from "../../config/input.js";
import { McpToolError } from "../../errors/McpToolError.js";

/** What the client declares for `handler`. */
export function inputCapabilities(handler: InputHandler | undefined): ClientCapabilities {
  return {
    ...(handler?.elicit ? { elicitation: { form: {}, url: {} } } : {}),
    ...(handler?.sample ? { sampling: {} } : {}),
  };
}

/** Answers the 2025 era's server-to-client input requests through `handler`. */
export function answerRequests(client: Client, handler: InputHandler | undefined, serverName: string): void {
  const elicit = handler?.elicit;
  const sample = handler?.sample;
  const context = (signal: AbortSignal | undefined): InputContext => ({ serverName, era: "legacy", ...(signal ? { signal } : {}) });
  if (elicit) client.setRequestHandler("elicitation/create", async (request, ctx) => withDefaults(request.params, await elicit(request.params, context(ctx.mcpReq?.signal))));
  if (sample) client.setRequestHandler("sampling/createMessage", (request, ctx) => sample(request.params, context(ctx.mcpReq?.signal)));
}

/**
 * An accepted form answer gets the schema's defaults for the fields it left out (SEP-1034): a
 * person who accepts a form with defaults accepts those values.
 */
export function withDefaults(request: ElicitRequest["params"], result: ElicitResult): ElicitResult {
  const schema = (request as { requestedSchema?: { properties?: Record<string, { default?: unknown }> } }).requestedSchema;
  if (result.action !== "accept" || request.mode === "url" || !schema?.properties) return result;
  const content: Record<string, unknown> = { ...(result.content ?? {}) };
  for (const [field, property] of Object.entries(schema.properties)) {
    if (!(field in content) && property.default !== undefined) content[field] = property.default;
  }
  return { ...result, content: content as ElicitResult["content"] };
}

interface InputRequired {
  resultType: "input_required";
  inputRequests?: Record<string, { method: string; params?: unknown }>;
  requestState?: string;
}

function isInputRequired(result: unknown): result is InputRequired {
  return typeof result === "object" && result !== null && (result as { resultType?: unknown }).resultType === "input_required";
}

export interface InputRounds {
  handler: InputHandler | undefined;
  maxRounds: number;
  context: InputContext;
  /** Bounds each wait on the handler by the call's own lifecycle (its timeout, the caller's abort). */
  wait: <T>(answer: Promise<T>) => Promise<T>;
}

/**
 * Sends a call and, while the server answers `input_required`, gathers the input and sends it
 * again with the answers and the server's state, at most `maxRounds` times. The server runs
 * nothing before it has its input, so a failure here is `not_sent`.
 */
export async function withInputRounds<P extends object>(
  send: (params: P) => Promise<CallToolResult>,
  params: P,
  rounds: InputRounds,
): Promise<CallToolResult> {
  let result: unknown = await send(params);
  for (let round = 1; isInputRequired(result); round++) {
    if (round > rounds.maxRounds) {
      throw McpToolError.of("elicitation_required", `The server asked for input ${round - 1} times for one call (the limit is maxInputRounds: ${rounds.maxRounds}) and still needs more.`, {
        serverName: rounds.context.serverName,
      });
    }
    const asked: InputRequired = result;
    const inputResponses: Record<string, unknown> = {};
    for (const [key, request] of Object.entries(asked.inputRequests ?? {})) inputResponses[key] = await answerInputRequest(request, rounds);
    result = await send({ ...params, inputResponses, ...(asked.requestState !== undefined ? { requestState: asked.requestState } : {}) });
  }
  return result as CallToolResult;
}

/** Answers one input request through the handler (bounded by `rounds.wait`); also a 2026 task's, asked in `input_required`. */
export async function answerInputRequest(request: { method: string; params?: unknown }, rounds: InputRounds): Promise<unknown> {
  const { handler, context } = rounds;
  const server = context.serverName;
  if (request.method === "elicitation/create") {
    const params = request.params as ElicitRequest["params"];
    if (handler?.elicit) return withDefaults(params, await rounds.wait(handler.elicit(params, context)));
    const what = params.mode === "url" ? `a person to visit ${String((params as { url?: unknown }).url)}` : "a person's answer";
    throw McpToolError.of("elicitation_required", `Server '${server}' needs ${what} before it can run the tool: ${params.message}`, { serverName: server });
  }
  if (request.method === "sampling/createMessage") {
    if (handler?.sample) return rounds.wait(handler.sample(request.params as CreateMessageRequest["params"], context));
    throw McpToolError.of("capability_missing", `Server '${server}' asked for a model completion (sampling), and no input handler answers it.`, { serverName: server });
  }
  // Roots: this client offers none.
  if (request.method === "roots/list") return { roots: [] };
  throw McpToolError.of("capability_missing", `Server '${server}' asked for '${request.method}', which this client does not answer.`, { serverName: server });
}
