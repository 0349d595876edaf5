/**
 * The `createAgent` middleware that pins chosen resources into the system prompt of every model
 * call, kept current as the servers change them (ResourcePins.ts). From the
 * `langchain-mcp-errors/agents` entry: it needs the `langchain` package.
 */
import { createMiddleware } from "langchain";
import type { McpResources } from "./McpResources.js";
import { ResourcePins, type ResourcePinsOptions } from "./ResourcePins.js";

/**
 * Pins resources into the agent's system prompt, within a token budget, each inside delimiters
 * naming its server and URI, read again when the server says it changed and after a lost
 * subscription is restored (docs/resources-and-prompts.md).
 *
 * ```ts
 * const pinned = mcpPinnedResourcesMiddleware(toolkit, { resources: [{ server: "docs", uri: "docs://handbook" }] });
 * const agent = createAgent({ model, tools: toolkit.getTools(), middleware: [pinned] });
 * ```
 *
 * The first model call reads the resources and starts watching (`pinned.pins.start()` does it
 * earlier); each call then waits at most `maxWaitMs` for reads a change just started. The watch
 * stops with `toolkit.close()` (or `pinned.pins.close()`); `pinned.pins.status()` tells each
 * resource's state.
 *
 * @throws McpConfigError for a server the toolkit does not have, a template that cannot be filled, or a budget under 100 tokens.
 */
export function mcpPinnedResourcesMiddleware(toolkit: { readonly resources: McpResources }, options: ResourcePinsOptions) {
  const pins = new ResourcePins(toolkit, options);
  const middleware = createMiddleware({
    name: "mcpPinnedResources",
    wrapModelCall: async (request, handler) => {
      await pins.start();
      await pins.settled();
      const text = pins.text();
      if (!text) return handler(request);
      const before = request.systemMessage.text;
      return handler({ ...request, systemMessage: request.systemMessage.concat(before ? `\n\n${text}` : text) });
    },
  });
  return Object.assign(middleware, { pins });
}
