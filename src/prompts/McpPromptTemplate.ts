/**
 * An MCP prompt where a LangChain `ChatPromptTemplate` goes: its input variables are the prompt's
 * arguments (the required ones; the others are `optionalVariables`), and formatting it is one
 * `prompts/get` through the toolkit, so the server fills the prompt in. `invoke` gives a
 * `ChatPromptValue`, so it pipes into a chat model as any chat prompt does.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { ChatPromptValue } from "@langchain/core/prompt_values";
import { BaseChatPromptTemplate } from "@langchain/core/prompts";
import type { RunnableConfig } from "@langchain/core/runnables";
import { McpToolError } from "../errors/McpToolError.js";

/** One argument of a prompt, as its server lists it. */
export interface McpPromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}

/** How the template gets the prompt's messages: `toolkit.prompts.get`. */
export type PromptGetter = (args: Record<string, string>, signal?: AbortSignal) => Promise<BaseMessage[]>;

type Values = Record<string, unknown>;

export class McpPromptTemplate extends BaseChatPromptTemplate<Values> {
  static override lc_name(): string {
    return "McpPromptTemplate";
  }

  // Its messages come from a server at format time: there is nothing to serialize and load back.
  override lc_serializable = false;
  /** The prompt's arguments that may be left out. */
  readonly optionalVariables: string[];

  constructor(
    /** The server the prompt is on. */
    readonly serverName: string,
    /** The prompt's name on its server. */
    readonly promptName: string,
    /** Its arguments, as the server listed them. */
    readonly promptArguments: readonly McpPromptArgument[],
    private readonly fetch: PromptGetter,
    partialVariables: Record<string, string> = {},
  ) {
    const given = new Set(Object.keys(partialVariables));
    const open = promptArguments.filter((a) => !given.has(a.name));
    super({ inputVariables: open.filter((a) => a.required === true).map((a) => a.name), partialVariables });
    this.optionalVariables = open.filter((a) => a.required !== true).map((a) => a.name);
  }

  _getPromptType(): "prompt" {
    return "prompt";
  }

  override formatMessages(values: Values): Promise<BaseMessage[]> {
    return this.messagesOf(values, undefined);
  }

  /** Like every prompt template's `invoke`, with the caller's signal carried to the server's request. */
  override invoke(input: Values, options?: RunnableConfig): Promise<ChatPromptValue> {
    const metadata = { ...this.metadata, ...options?.metadata };
    const tags = [...(this.tags ?? []), ...(options?.tags ?? [])];
    return this._callWithConfig(
      async (values: Values, config?: RunnableConfig) => new ChatPromptValue(await this.messagesOf(values, config?.signal)),
      input,
      { ...options, tags, metadata, runType: "prompt" },
    );
  }

  override async partial(values: Record<string, string>): Promise<McpPromptTemplate> {
    return new McpPromptTemplate(this.serverName, this.promptName, this.promptArguments, this.fetch, { ...(this.partialVariables as Record<string, string> | undefined), ...values });
  }

  /**
   * The prompt's messages for these values. A required argument left out fails here, unsent, as
   * `invalid_params` naming it (the server would refuse it the same way); values that are not
   * strings are sent as their text (MCP prompt arguments are strings).
   */
  private async messagesOf(values: Values, signal: AbortSignal | undefined): Promise<BaseMessage[]> {
    const merged: Values = await this.mergePartialAndUserVariables(values);
    const missing = this.promptArguments.filter((a) => a.required === true && (merged[a.name] === undefined || merged[a.name] === null)).map((a) => a.name);
    if (missing.length > 0) {
      const names = missing.map((m) => `'${m}'`).join(", ");
      throw McpToolError.of("invalid_params", `Prompt '${this.promptName}' on server '${this.serverName}' needs the argument${missing.length > 1 ? "s" : ""} ${names}.`, {
        serverName: this.serverName,
        toolName: this.promptName,
        data: { missing },
      });
    }
    const known = new Set(this.promptArguments.map((a) => a.name));
    const args: Record<string, string> = {};
    for (const [key, value] of Object.entries(merged)) {
      if (!known.has(key) || value === undefined || value === null) continue;
      args[key] = typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
    }
    return this.fetch(args, signal);
  }
}
