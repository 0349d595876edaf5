/**
 * The `resources` options: whether the model is offered the two resource tools, and their
 * budgets. The toolkit's apply to every server; a server's own `resources.tools` overrides them
 * for that server. Each default is stated here once, with its `@default` tag.
 */
import type { z } from "zod";
import { flag, number, options } from "./fields.js";

export const ResourceOptionsSchema = options({
  /**
   * Offer the model `list_mcp_resources` and `read_mcp_resource` in `getTools()`, over the
   * resources of every server that says yes (a server's own `resources.tools` wins). Off, the
   * model sees no resource tool, and `toolkit.resources` still serves application code.
   * @default false
   */
  tools: flag().default(false),
  /**
   * The most characters of a resource's text one `read_mcp_resource` returns; a longer text is cut
   * with a note saying which `offset` reads the next part, and a `limit` past it is refused
   * (`resource_too_large`). @default 20000
   */
  maxReadLength: number({ min: 100, integer: true }).default(20_000),
  /** The most resources and templates `list_mcp_resources` shows at once; the rest are paged with its `offset`. @default 200 */
  maxListLength: number({ min: 1, integer: true }).default(200),
});
export interface ResourceOptions extends z.input<typeof ResourceOptionsSchema> {}

/** A server's own `resources` options: whether its resources are offered through the model's tools. */
export const ServerResourceOptionsSchema = options({
  /** Offer this server's resources through the model's resource tools. Unset, the toolkit's `resources.tools` applies. */
  tools: flag().optional(),
});
export interface ServerResourceOptions extends z.input<typeof ServerResourceOptionsSchema> {}
