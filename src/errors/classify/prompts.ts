import type { Classification, NormalizeContext } from "./context.js";

const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;

// How SDK servers (v1 and v2 McpServer) word a prompts/get for a prompt they do not have or have
// disabled: "Prompt x not found", "Prompt x disabled". A name may come quoted; fastmcp-style
// servers say "Unknown prompt: x".
const PROMPT_X_MISSING = /^Prompt\s+['"`]?([^\s'"`]+?)['"`]?\s+(?:not found|disabled)\b/i;
const UNKNOWN_PROMPT = /^Unknown prompt\b[:\s]*(?:['"`]?([^\s'"`]+?)['"`]?(?=[\s.,;!]|$))?/i;

/**
 * A JSON-RPC error answering a `prompts/*` request, which the method makes plain:
 * - -32601: the server offers no prompts (`capability_missing`, one clear line rather than
 *   "Method not found");
 * - -32602 on `prompts/get` naming the prompt asked for as unknown: `prompt_not_found`. Any other
 *   -32602 (a missing or bad argument) stays `invalid_params`.
 * `undefined` for every other request, and every other code.
 */
export function fromPromptRequest(code: number, text: string, ctx: NormalizeContext): Classification | undefined {
  const method = ctx.method;
  if (method === undefined || !method.startsWith("prompts/")) return undefined;
  if (code === METHOD_NOT_FOUND) {
    const server = ctx.serverName ? `Server '${ctx.serverName}'` : "The server";
    return { reason: "capability_missing", message: `${server} offers no prompts (it answered ${method} with: ${text}).` };
  }
  if (code === INVALID_PARAMS && method === "prompts/get" && namesMissingPrompt(text, ctx.mcpName)) return { reason: "prompt_not_found", message: text };
  return undefined;
}

/** Does this text say that the prompt asked for (`name`; any, when unknown) is missing from the server? */
export function namesMissingPrompt(text: string, name: string | undefined): boolean {
  const match = PROMPT_X_MISSING.exec(text) ?? UNKNOWN_PROMPT.exec(text);
  if (!match) return false;
  return name === undefined || match[1] === undefined || match[1] === name;
}
