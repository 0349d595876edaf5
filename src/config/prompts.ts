/** The `prompts` option, of the toolkit and of each server: what of the servers' prompts the model is offered. */
import type { z } from "zod";
import { flag, options } from "./fields.js";

export const PromptOptionsSchema = options({
  /**
   * Offer the model two tools, `list_mcp_prompts` and `get_mcp_prompt`, over the prompts of the
   * servers that set it (a server's own setting wins over the toolkit's). Prompts are chosen by the
   * user in most applications (`toolkit.prompts`); this is for autonomous agents. Off unless set.
   */
  tools: flag().optional(),
});

export type PromptOptions = z.input<typeof PromptOptionsSchema>;
