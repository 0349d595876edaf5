/**
 * The model's two resource tools, offered when the configuration asks (`resources: { tools: true }`):
 * - `list_mcp_resources`: the resources and templates of every server offered, metadata only,
 *   every page read, at most `maxListLength` entries at once (the rest by `offset`);
 * - `read_mcp_resource`: one resource, or a template expanded (RFC 6570) with `variables`, its
 *   text within `maxReadLength` characters and a note saying how to read the next part.
 * They are McpTools: a failure is an error ToolMessage with one readable, redacted line, and the
 * McpToolError as its artifact, as for any tool. The names are taken before the servers' tools
 * are named, so a server's own `read_mcp_resource` gets its server's prefix.
 */
import type { JSONSchema } from "@langchain/core/utils/json_schema";
import type { ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { McpToolError } from "../errors/McpToolError.js";
import type { Redactor } from "../errors/redactor.js";
import { McpTool } from "../langchain/McpTool.js";
import { begin } from "../policy/chain.js";
import type { RequestWho } from "./resourceRequests.js";
import type { ResourceListing } from "./McpResources.js";
import { listText, readReply } from "./modelText.js";
import { expandTemplate, matchesTemplate } from "./uriTemplates.js";

export const LIST_TOOL = "list_mcp_resources";
export const READ_TOOL = "read_mcp_resource";

/** What the tools need of `toolkit.resources`. */
export interface ResourceToolsHost {
  toolServers(): string[];
  readonly options: { maxReadLength: number; maxListLength: number };
  listAs(toolName: string, servers: readonly string[], named: boolean, signal?: AbortSignal): Promise<ResourceListing>;
  readResult(who: RequestWho, uri: string, signal?: AbortSignal): Promise<ReadResourceResult>;
  serverOf(uri: string, servers: readonly string[], matches: (template: string, uri: string) => boolean): string | undefined;
}

interface ListArgs {
  server?: string;
  offset?: number;
}

interface ReadArgs {
  uri: string;
  server?: string;
  variables?: Record<string, string | string[]>;
  offset?: number;
  limit?: number;
}

/** Builds the two tools over `host`. */
export function resourceToolsFor(host: ResourceToolsHost, redactor: Redactor, errorMode: "return" | "throw"): McpTool[] {
  const { maxReadLength, maxListLength } = host.options;
  const make = (name: string, description: string, schema: JSONSchema, run: (args: Record<string, unknown>, signal: AbortSignal | undefined) => Promise<[unknown, unknown]>) =>
    new McpTool({
      name,
      description,
      schema,
      metadata: { idempotent: true, readOnly: true, resourceTool: true },
      execute: (failed) => (args, runConfig) => begin(() => run(args, runConfig?.signal)).then(undefined, failed),
      errorMode,
      redactor,
    });
  const servers = () => host.toolServers();
  const list = make(
    LIST_TOOL,
    `Lists the resources (documents, files, records) the MCP servers offer, and the URI templates they read: metadata only, ${maxListLength} entries at a time. Read one with ${READ_TOOL}.`,
    {
      type: "object",
      properties: {
        server: { type: "string", description: "Only this server's resources." },
        offset: { type: "integer", minimum: 0, description: "Skip this many entries: a cut list says which offset shows the next ones." },
      },
    },
    async (args, signal) => {
      const { server, offset = 0 } = args as ListArgs;
      const listing = await host.listAs(LIST_TOOL, server === undefined ? servers() : [offered(server, servers(), LIST_TOOL)], server !== undefined, signal);
      // Nothing listed and every server failed: the model reads the failure as one line, as for a tool.
      if (listing.failures.length > 0 && listing.resources.length === 0 && listing.templates.length === 0 && listing.failures.length === (server === undefined ? servers().length : 1)) {
        throw listing.failures[0]!.error;
      }
      return [listText(listing, offset, maxListLength, (t) => redactor.text(t)), { resources: listing.resources.slice(offset, offset + maxListLength), templates: listing.templates, failures: listing.failures.map(({ server: s, error }) => ({ server: s, reason: error.reason, message: error.message })) }];
    },
  );
  const read = make(
    READ_TOOL,
    `Reads one MCP resource by its uri (from ${LIST_TOOL}); a template's uri is expanded with variables. Text comes ${maxReadLength} characters at a time: a cut answer says which offset reads the next part.`,
    {
      type: "object",
      properties: {
        uri: { type: "string", description: "The resource's uri, or a template's uriTemplate together with variables." },
        server: { type: "string", description: "The server that lists it; needed only when it is not in the list." },
        variables: { type: "object", additionalProperties: { type: "string" }, description: "The values of a template's {variables}." },
        offset: { type: "integer", minimum: 0, description: "The character to start at, from 0. @default 0" },
        limit: { type: "integer", minimum: 1, description: `How many characters to read, at most ${maxReadLength}.` },
      },
      required: ["uri"],
    },
    async (args, signal) => {
      const { server: named, variables, offset = 0, limit } = args as unknown as ReadArgs;
      const uri = expanded((args as unknown as ReadArgs).uri, variables);
      if (limit !== undefined && limit > maxReadLength) {
        throw McpToolError.of("resource_too_large", `A limit of ${limit} characters is past the budget of ${maxReadLength} for one read of '${uri}'; read it in parts: offset 0 with limit ${maxReadLength}, then offset ${maxReadLength}, and so on.`, {
          toolName: READ_TOOL,
          ...(named ? { serverName: named } : {}),
          data: { uri, limit, maxReadLength },
        });
      }
      const server = named !== undefined ? offered(named, servers(), READ_TOOL) : await serverFor(host, uri, servers(), signal);
      const result = await host.readResult({ server, method: "resources/read", toolName: READ_TOOL }, uri, signal);
      return readReply(server, uri, result, { offset, length: limit ?? maxReadLength, asked: limit !== undefined }, named !== undefined || servers().length > 1);
    },
  );
  return [list, read];
}

/** A URI template (RFC 6570, as the SDK's UriTemplate reads it) filled with `variables`; any other URI as it is. */
function expanded(uri: string, variables: ReadArgs["variables"]): string {
  return expandTemplate(uri, variables ?? {}, READ_TOOL);
}

const matches = matchesTemplate;

function offered(server: string, servers: readonly string[], toolName: string): string {
  if (servers.includes(server)) return server;
  throw McpToolError.of("invalid_arguments", `No server '${server}' offers resources here (servers: ${servers.join(", ") || "none"}).`, { toolName, outcome: "not_sent" });
}

/**
 * The server of a URI the model gave without one: the only server offered, else the one that
 * listed it (or has a template it fits), by the last list, read again once if it is not there.
 */
async function serverFor(host: ResourceToolsHost, uri: string, servers: readonly string[], signal: AbortSignal | undefined): Promise<string> {
  if (servers.length === 1) return servers[0]!;
  const known = host.serverOf(uri, servers, matches);
  if (known) return known;
  await host.listAs(READ_TOOL, servers, false, signal);
  const found = host.serverOf(uri, servers, matches);
  if (found) return found;
  throw McpToolError.of("resource_not_found", `No server lists the resource '${uri}' (servers: ${servers.join(", ")}); name its server with 'server' if it has one.`, { toolName: READ_TOOL, data: { uri } });
}
