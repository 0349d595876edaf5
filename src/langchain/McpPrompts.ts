/**
 * `toolkit.prompts`: the servers' prompts for application code (the spec calls prompts
 * user-controlled: the user picks one, not the model). Every request goes through the toolkit's
 * pipeline (PromptCalls); what it returns passes the same redaction as a tool's result, and what
 * it throws is a redacted McpToolError.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { CallToolResult, GetPromptResult, ListPromptsResult } from "@modelcontextprotocol/sdk/types.js";
import { isMcpToolError, McpToolError } from "../errors/McpToolError.js";
import type { Redactor } from "../errors/redactor.js";
import type { McpTool } from "./McpTool.js";
import { McpPromptTemplate, type McpPromptArgument } from "../prompts/McpPromptTemplate.js";
import { noSuchServer, PromptCalls, type PromptCallParts } from "../prompts/PromptCalls.js";
import { toMessages } from "../prompts/promptMessages.js";
import { promptTools } from "./promptTools.js";

export type { McpPromptArgument } from "../prompts/McpPromptTemplate.js";

/** One prompt a server lists. */
export interface McpPromptInfo {
  serverName: string;
  name: string;
  title?: string;
  description?: string;
  arguments: McpPromptArgument[];
}

/** A server whose list failed: its name and the classified, redacted error. */
export interface McpPromptListFailure {
  server: string;
  error: McpToolError;
}

/**
 * What `prompts.list()` found: every page of every server's prompts, and the servers whose list
 * failed (the same shape as `resources.list()`). A failing server never hides the others.
 */
export interface McpPromptList {
  prompts: McpPromptInfo[];
  failures: McpPromptListFailure[];
}

/** The caller's signal, for a request it may give up on. */
export interface PromptRequestOptions {
  signal?: AbortSignal;
}

export class McpPrompts {
  private readonly calls: PromptCalls;
  private offered: McpTool[] | undefined;

  constructor(private readonly parts: PromptCallParts & { redactor: Redactor }) {
    this.calls = new PromptCalls(parts);
  }

  /**
   * The prompts of one server, or of every server, every page of each list read (`nextCursor`). A
   * server that declared no prompts is left out of a list of every server, and is a
   * `capability_missing` failure when named. A server whose list fails is in `failures` (by name,
   * with its redacted error); the others are still listed. Throws only for a server name that is
   * not configured (`invalid_arguments`).
   */
  async list(server?: string, options: PromptRequestOptions = {}): Promise<McpPromptList> {
    if (server !== undefined && !this.calls.servers.includes(server)) throw this.redacted(noSuchServer(server, this.calls.servers));
    const servers = server === undefined ? this.calls.servers : [server];
    const settled = await Promise.allSettled(servers.map((name) => this.listed(name, options.signal)));
    const out: McpPromptList = { prompts: [], failures: [] };
    settled.forEach((result, i) => {
      if (result.status === "fulfilled") out.prompts.push(...result.value);
      // Anything but a classified error (a LangGraph interrupt, a bug) is no server's failure: thrown as it is.
      else if (!isMcpToolError(result.reason)) throw result.reason;
      else if (server !== undefined || result.reason.reason !== "capability_missing") out.failures.push({ server: servers[i]!, error: this.redacted(result.reason) });
    });
    return out;
  }

  /**
   * The prompt `name` of `server`, filled in with `args`, as LangChain messages (see
   * promptMessages.ts). An unknown prompt is `prompt_not_found`, a missing or bad argument
   * `invalid_params`, a server without prompts `capability_missing`: thrown, never returned.
   */
  async get(server: string, name: string, args: Record<string, string> = {}, options: PromptRequestOptions = {}): Promise<BaseMessage[]> {
    return toMessages(await this.guarded(this.fetch(server, name, args, options.signal)));
  }

  /**
   * The prompt as a `ChatPromptTemplate`-compatible object: its input variables are the prompt's
   * required arguments, and each format is one `prompts/get`. Lists the server's prompts to learn
   * them: a prompt it does not list is `prompt_not_found`.
   */
  async template(server: string, name: string, options: PromptRequestOptions = {}): Promise<McpPromptTemplate> {
    const listed = await this.guarded(this.listed(server, options.signal));
    const prompt = listed.find((p) => p.name === name);
    if (!prompt) throw notListed(server, name, listed);
    return new McpPromptTemplate(server, name, prompt.arguments, (args, signal) => this.get(server, name, args, signal ? { signal } : {}));
  }

  /** The model's prompt tools, when the configuration asks for them (`prompts: { tools: true }`); made once. */
  tools(): McpTool[] {
    return (this.offered ??= promptTools(this.parts.config, this.parts.redactor, {
      // Unredacted here: the tool redacts what it reports, once (McpTool).
      list: (server, signal) => this.listed(server, signal),
      fetch: (server, name, args, signal) => this.fetch(server, name, args, signal),
    }));
  }

  /** The prompt's result as the server sent it, redacted as a tool's result is; its failure as classified. */
  private async fetch(server: string, name: string, args: Record<string, string>, signal: AbortSignal | undefined): Promise<GetPromptResult> {
    const result = await this.calls.get(server, name, args, signal);
    // The same walk as a tool's result (its configured secrets), over the prompt's messages.
    return this.parts.redactor.result(result as unknown as CallToolResult) as unknown as GetPromptResult;
  }

  private async listed(server: string, signal: AbortSignal | undefined): Promise<McpPromptInfo[]> {
    const prompts = await this.calls.list(server, signal);
    return prompts.map((p) => infoOf(server, p));
  }

  /** What leaves the library is redacted: an McpToolError thrown by a request. */
  private guarded<T>(running: Promise<T>): Promise<T> {
    return running.catch((thrown: unknown) => {
      throw this.redacted(thrown);
    });
  }

  private redacted(thrown: unknown): McpToolError {
    return isMcpToolError(thrown) ? this.parts.redactor.error(thrown) : (thrown as McpToolError);
  }
}

function infoOf(serverName: string, prompt: ListPromptsResult["prompts"][number]): McpPromptInfo {
  const args = (prompt.arguments ?? []).map((a) => ({ name: a.name, ...(a.description ? { description: a.description } : {}), ...(a.required !== undefined ? { required: a.required } : {}) }));
  return {
    serverName,
    name: prompt.name,
    ...(prompt.title ? { title: prompt.title } : {}),
    ...(prompt.description ? { description: prompt.description } : {}),
    arguments: args,
  };
}

/** A prompt the server does not list: nothing was asked of it. */
export function notListed(server: string, name: string, listed: readonly McpPromptInfo[]): McpToolError {
  const names = listed.map((p) => p.name);
  const known = names.length > 0 ? `its prompts: ${names.slice(0, 20).join(", ")}${names.length > 20 ? ", …" : ""}` : "it lists none";
  return McpToolError.of("prompt_not_found", `Server '${server}' has no prompt '${name}' (${known}).`, { serverName: server, toolName: name });
}
