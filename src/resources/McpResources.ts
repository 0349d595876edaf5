/**
 * The resources of a toolkit's servers, for application code (`toolkit.resources`) and for the
 * model (the two tools of resourceTools.ts, offered when the configuration asks). Every request
 * runs through the pipeline a tool call runs through (resourceRequests.ts); every failure is an
 * `McpToolError`, redacted before it leaves.
 */
import { Document } from "@langchain/core/documents";
import type { CallToolResult, ReadResourceResult, Resource, ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_ERROR_OPTIONS, defaultsOf } from "../config/index.js";
import { ResourceOptionsSchema } from "../config/resources.js";
import { isMcpToolError, McpToolError } from "../errors/McpToolError.js";
import type { ToolCallerParts } from "../langchain/toolCaller.js";
import type { McpTool } from "../langchain/McpTool.js";
import { isV2Client, type AnyClient, type CallOptions } from "../mcp/session/clients.js";
import type { Connection } from "../mcp/session/Connection.js";
import type { EventHub } from "../eventHub.js";
import { ResourceRequests, type RequestWho } from "./resourceRequests.js";
import { Coalescer } from "../policy/Coalescer.js";
import type { CallContract } from "../mcp/call/CallContract.js";
import type { HedgeGroup } from "../policy/Hedger.js";
import { hedgedRead } from "./hedgedRead.js";
import { cancelled } from "../policy/abort.js";
import { documentsOf } from "./documents.js";
import { resourceToolsFor, type ResourceToolsHost } from "./resourceTools.js";

/** A resource as its server listed it, with the server's name. */
export interface ResourceInfo {
  server: string;
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Bytes, as the server declared it. */
  size?: number;
  annotations?: Resource["annotations"];
}

/** A resource template (RFC 6570) as its server listed it, with the server's name. */
export interface ResourceTemplateInfo {
  server: string;
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: ResourceTemplate["annotations"];
}

/** A server whose list failed: its name and the classified, redacted error. */
export interface ResourceListFailure {
  server: string;
  error: McpToolError;
}

/**
 * What `list` found: every page of every server's resources and templates, and the servers whose
 * list failed. A failing server never hides the others; check `failures`.
 */
export interface ResourceListing {
  resources: ResourceInfo[];
  templates: ResourceTemplateInfo[];
  failures: ResourceListFailure[];
}

export interface ResourceCallOptions {
  /** Aborts the request (and its retries) at once, as `cancelled`. */
  signal?: AbortSignal;
  /**
   * Read from the server even where the v2 client holds the answer in its response cache (a
   * server's `ttlMs`): what changed while no change notification could arrive. @default false
   */
  fresh?: boolean;
}

/** What an empty `resources` means: its defaults, read from the schema. */
export const DEFAULT_RESOURCE_OPTIONS = defaultsOf(ResourceOptionsSchema);

/** How many pages one list may take before the server's cursor is judged never to end. */
const MAX_PAGES = 10_000;
/** The method -32601 a server without templates answers: it has none, and that is no failure. */
const METHOD_NOT_FOUND = -32601;

export class McpResources implements ResourceToolsHost {
  readonly requests: ResourceRequests;
  /** Reads in flight, shared by identical callers. */
  private readonly reads = new Coalescer<ReadResourceResult>();
  private builtTools: McpTool[] | undefined;
  /** What each server listed last: where `read_mcp_resource` finds a URI's server when the model names none. */
  private readonly lastListing = new Map<string, { uris: Set<string>; templates: string[] }>();

  /** @param parts the toolkit's caller's parts (its config, connections, guards, events, telemetry, redactor), read when first needed. */
  constructor(private readonly parts: () => ToolCallerParts) {
    this.requests = new ResourceRequests(parts);
  }

  /**
   * Lists the resources and templates of one server, or of every server that offers resources,
   * reading every page (`nextCursor`). A server that declared no resources capability is left out
   * of a list of every server, and is a `capability_missing` failure when named. A server whose
   * list fails is in `failures` (by name, with its error); the others are still listed.
   * Throws only for a server name that is not configured (`invalid_arguments`).
   */
  async list(server?: string, options: ResourceCallOptions = {}): Promise<ResourceListing> {
    return this.listAs("resources/list", server === undefined ? this.requests.servers : [server], server !== undefined, options.signal);
  }

  /**
   * Reads one resource as LangChain `Document`s, one per content item: `pageContent` is its text
   * (a blob's is a one-line description, its base64 in `metadata.blob`); `metadata` holds
   * `server`, `uri`, `mimeType`, `annotations`, `lastModified` and `_meta` where the server gave
   * them. The text passes the toolkit's redaction of configured secrets (unless a `tools` policy
   * for `<server>/resources/read` says `redactResults: false`). Throws the classified `McpToolError`:
   * `resource_not_found`, `capability_missing`, `invalid_result` (an answer with no contents), or
   * whatever the transport met, after the same retries a read-only tool gets.
   */
  async read(server: string, uri: string, options: ResourceCallOptions = {}): Promise<Document[]> {
    const result = await this.readResult({ server, method: "resources/read", toolName: "resources/read" }, uri, options.signal, options.fresh).catch((error: unknown) => {
      const redactor = this.parts().redactor;
      throw redactor && isMcpToolError(error) ? redactor.error(error) : error;
    });
    return documentsOf(server, result).map((d) => new Document(d));
  }

  /** What a watch of pinned resources needs of the toolkit (resourceWatch.ts): a server's connection, the toolkit's events and its redaction. */
  watchParts(server: string): { connection: Connection | undefined; events: EventHub; redact: (error: McpToolError) => McpToolError } {
    const { connections, events, redactor } = this.parts();
    return { connection: connections.get(server), events, redact: (error) => (redactor ? redactor.error(error) : error) };
  }

  /** The two model tools, when the configuration offers them to any server; built once. */
  tools(): McpTool[] {
    if (this.builtTools) return this.builtTools;
    const { config, redactor } = this.parts();
    if (this.toolServers().length === 0) return (this.builtTools = []);
    return (this.builtTools = resourceToolsFor(this, redactor!, config.errors?.mode ?? DEFAULT_ERROR_OPTIONS.mode));
  }

  /** The servers whose resources the model's tools reach: a server's own `resources.tools`, else the toolkit's. */
  toolServers(): string[] {
    const { config } = this.parts();
    const all = config.resources?.tools === true;
    return Object.entries(config.servers)
      .filter(([, s]) => (s as { resources?: { tools?: boolean } }).resources?.tools ?? all)
      .map(([name]) => name);
  }

  /** The toolkit's configuration of the tools' budgets. */
  get options(): { maxReadLength: number; maxListLength: number } {
    const r = this.parts().config.resources;
    return { maxReadLength: r?.maxReadLength ?? DEFAULT_RESOURCE_OPTIONS.maxReadLength, maxListLength: r?.maxListLength ?? DEFAULT_RESOURCE_OPTIONS.maxListLength };
  }

  /** A list for the given servers, under `toolName`: what `list` and `list_mcp_resources` share. */
  async listAs(toolName: string, servers: readonly string[], named: boolean, signal?: AbortSignal): Promise<ResourceListing> {
    const redactor = this.parts().redactor;
    const listing: ResourceListing = { resources: [], templates: [], failures: [] };
    const each = await Promise.all(servers.map((server) => this.listServer(server, toolName, signal).then((found) => ({ server, found }), (error: unknown) => ({ server, error }))));
    for (const entry of each) {
      if ("found" in entry) {
        listing.resources.push(...entry.found.resources);
        listing.templates.push(...entry.found.templates);
        continue;
      }
      const error = entry.error;
      if (!isMcpToolError(error)) throw error; // a LangGraph interrupt, or a bug: not a server's failure
      // Unknown names and the caller's own abort are the caller's, not a server's.
      if (error.reason === "invalid_arguments" || error.reason === "cancelled") throw redactor ? redactor.error(error) : error;
      if (!named && error.reason === "capability_missing") continue;
      listing.failures.push({ server: entry.server, error: redactor ? redactor.error(error) : error });
    }
    return listing;
  }

  /** One server's resources and templates, every page; a server without templates (-32601) has none. */
  private async listServer(server: string, toolName: string, signal?: AbortSignal): Promise<{ resources: ResourceInfo[]; templates: ResourceTemplateInfo[] }> {
    const listed = await this.pages<Resource>({ server, method: "resources/list", toolName }, "resources", signal);
    const templates = await this.pages<ResourceTemplate>({ server, method: "resources/templates/list", toolName }, "resourceTemplates", signal).catch((error: unknown) => {
      if (isMcpToolError(error) && error.code === METHOD_NOT_FOUND) return [];
      throw error;
    });
    const resources = listed.map((r) => ({ ...pick(r, ["uri", "name", "title", "description", "mimeType", "size", "annotations"]), server }) as ResourceInfo);
    const shaped = templates.map((t) => ({ ...pick(t, ["uriTemplate", "name", "title", "description", "mimeType", "annotations"]), server }) as ResourceTemplateInfo);
    this.lastListing.set(server, { uris: new Set(resources.map((r) => r.uri)), templates: shaped.map((t) => t.uriTemplate) });
    return { resources, templates: shaped };
  }

  /** Every page of a list, each page one call through the pipeline; a cursor that comes back is a list that never ends. */
  private async pages<T>(who: RequestWho, key: "resources" | "resourceTemplates", signal?: AbortSignal): Promise<T[]> {
    const out: T[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 1; ; page++) {
      const at = cursor;
      const result = await this.requests.run(who, (client, options, meta) => listPage(client, who.method, at, meta, options), signal);
      const items = (result as Record<string, unknown>)[key];
      out.push(...((Array.isArray(items) ? items : []) as T[]));
      cursor = typeof result.nextCursor === "string" && result.nextCursor !== "" ? result.nextCursor : undefined;
      if (cursor === undefined) return out;
      if (seen.has(cursor) || page >= MAX_PAGES) {
        throw McpToolError.of("invalid_result", `Server '${who.server}' never ended its ${who.method} list: ${seen.has(cursor) ? "it sent a cursor it had sent before" : `more than ${MAX_PAGES} pages`}.`, {
          serverName: who.server,
          toolName: who.toolName,
          attempts: 1,
        });
      }
      seen.add(cursor);
    }
  }

  /** Where a URI is served, by what the servers listed last: the server listing it, else one whose template matches it. */
  serverOf(uri: string, servers: readonly string[], matches: (template: string, uri: string) => boolean): string | undefined {
    for (const server of servers) if (this.lastListing.get(server)?.uris.has(uri)) return server;
    for (const server of servers) if (this.lastListing.get(server)?.templates.some((t) => matches(t, uri))) return server;
    return undefined;
  }

  /**
   * One read through the pipeline: an answer with no contents is `invalid_result` (the spec does
   * not allow it), and the configured secrets are taken out of every string in it.
   */
  async readResult(who: RequestWho, uri: string, signal?: AbortSignal, fresh = false): Promise<ReadResourceResult> {
    if (typeof uri !== "string" || uri === "") throw McpToolError.of("invalid_arguments", "A resource URI must be a non-empty string.", { serverName: who.server, toolName: who.toolName });
    const once = (under: AbortSignal | undefined, within?: CallContract, call?: HedgeGroup) =>
      this.requests.run(
        who,
        (client, options, meta) =>
          (client as V1Reads).readResource({ uri, ...(meta ? { _meta: meta } : {}) }, fresh && isV2Client(client) ? { ...options, cacheMode: "refresh" } : options).then((read) => withContents(read, who, uri)),
        under,
        within && call ? { within, call } : undefined,
      );
    const policy = this.requests.policyFor(who);
    const { guards, events } = this.parts();
    const hedged = policy.hedge ? { ...policy, hedge: policy.hedge } : undefined;
    const run = hedged
      ? (under: AbortSignal | undefined) => hedgedRead({ policy: hedged, attempt: once, budget: guards.get(who.server)?.budget, events, context: { toolName: who.toolName, serverName: who.server } }, under)
      : (under: AbortSignal | undefined) => once(under);
    // Identical reads in flight share one request (a read only reads); each caller keeps its own
    // signal, and gets its own copy. The request is cancelled when the last caller has gone. Reads
    // for the model and for the application do not share: a shared error names its first caller.
    const result = policy.coalesce
      ? structuredClone(await this.reads.join(`${who.server}\u0000${who.toolName}\u0000${uri}\u0000${fresh ? 1 : 0}`, run, signal, (reason) => cancelled({ toolName: who.toolName, serverName: who.server }, reason)).result)
      : await run(signal);
    const redactor = this.parts().redactor;
    if (!redactor || !this.requests.policyFor(who).redactResults) return result;
    return redactor.result(result as unknown as CallToolResult) as unknown as ReadResourceResult;
  }
}

/** The read methods as both SDK lines' clients have them: `(params, options)`. */
interface V1Reads {
  readResource(params: { uri: string; _meta?: Record<string, unknown> }, options?: CallOptions & { cacheMode?: "refresh" }): Promise<ReadResourceResult>;
  listResources(params: Record<string, unknown> | undefined, options?: CallOptions): Promise<Record<string, unknown>>;
  listResourceTemplates(params: Record<string, unknown> | undefined, options?: CallOptions): Promise<Record<string, unknown>>;
}

/**
 * One page of a list. The v2 client walks every page itself when asked without a cursor (capped,
 * and cached), so its first page is asked for as a plain request; v1 asks one page at a time.
 */
function listPage(client: AnyClient, method: string, cursor: string | undefined, meta: Record<string, unknown> | undefined, options: CallOptions): Promise<Record<string, unknown> & { nextCursor?: unknown }> {
  const params = { ...(cursor !== undefined ? { cursor } : {}), ...(meta ? { _meta: meta } : {}) };
  if (isV2Client(client)) {
    const request = client.request as unknown as (r: { method: string; params: Record<string, unknown> }, o: CallOptions) => Promise<Record<string, unknown>>;
    return request.call(client, { method, params }, options);
  }
  const v1 = client as unknown as V1Reads;
  return method === "resources/list" ? v1.listResources(params, options) : v1.listResourceTemplates(params, options);
}

/** The spec requires at least one content item: an answer without is a bad result (the server answered: executed). */
function withContents(result: ReadResourceResult, who: RequestWho, uri: string): ReadResourceResult {
  if (Array.isArray(result?.contents) && result.contents.length > 0) return result;
  throw McpToolError.of("invalid_result", `Server '${who.server}' answered the read of '${uri}' with no contents.`, { serverName: who.server, toolName: who.toolName, data: { uri } });
}

function pick<T extends object>(value: T, keys: readonly string[]): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if ((value as Record<string, unknown>)[key] !== undefined) out[key] = (value as Record<string, unknown>)[key];
  return out as Partial<T>;
}
