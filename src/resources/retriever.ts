/**
 * `McpResourceRetriever`: MCP resources as a LangChain retriever. A query selects resources by
 * URI, by template (RFC 6570) or by name, and each is read through `toolkit.resources.read`, so
 * the pipeline, its retries and the redaction apply, and comes back as Documents.
 *
 * Failures, decided this way because a retriever's caller sees only a list of Documents: a list
 * missing some because a server was down reads as "nothing else is relevant", and the model
 * answers from part of what it should have had without knowing it. So every failure is thrown,
 * the classified, redacted `McpToolError` (after the pipeline's retries), with one exception: a
 * URI that names nothing (`resource_not_found`) is no Document, as a search that matches nothing
 * is none (`missing: "throw"` throws it too). Several resources are read together; the first
 * failure in the order of the selection is thrown.
 */
import { type CallbackManagerForRetrieverRun } from "@langchain/core/callbacks/manager";
import type { Document } from "@langchain/core/documents";
import { BaseRetriever, type BaseRetrieverInput } from "@langchain/core/retrievers";
import { McpConfigError } from "../config/validate.js";
import { isMcpToolError, McpToolError } from "../errors/McpToolError.js";
import type { ResourceDocumentMetadata } from "./documents.js";
import type { McpResources, ResourceInfo } from "./McpResources.js";
import { expandTemplate, matchesTemplate, variablesOf, type TemplateVariables } from "./uriTemplates.js";

/** How a query selects the resources to read. */
export type ResourceSelection =
  /** The query is a resource's URI, on `server` (else the server that lists it, or has a template it fits). */
  | { by: "uri"; server?: string }
  /**
   * The query fills the template's `variable` (by default its only variable not in `variables`),
   * `variables` the others; or `variables` is a function from the query to every value.
   */
  | { by: "template"; uriTemplate: string; server?: string; variable?: string; variables?: TemplateVariables | ((query: string) => TemplateVariables) }
  /**
   * The query's words are matched against the name, title and description of every resource
   * the `servers` list (every page; every server by default), and the best `k` are read.
   */
  | { by: "name"; servers?: string[]; k?: number };

export interface McpResourceRetrieverInput extends BaseRetrieverInput {
  /** The toolkit whose servers' resources are read. */
  toolkit: { readonly resources: McpResources };
  select: ResourceSelection;
  /** A selected URI that names nothing (`resource_not_found`): no Document (`"skip"`), or thrown (`"throw"`). @default "skip" */
  missing?: "skip" | "throw";
}

/** How many resources a name match reads when `k` is not given. */
export const DEFAULT_NAME_MATCHES = 4;
/** A match of a query word, by where it was found. */
const WEIGHTS = { name: 3, title: 2, description: 1 } as const;
const TOOL_NAME = "McpResourceRetriever";

export class McpResourceRetriever extends BaseRetriever<ResourceDocumentMetadata> {
  static override lc_name(): string {
    return "McpResourceRetriever";
  }

  override lc_namespace = ["langchain_mcp_errors", "retrievers"];
  private readonly resources: McpResources;
  readonly select: ResourceSelection;
  readonly missing: "skip" | "throw";
  /** The template variable the query fills (`by: "template"`). */
  private readonly queryVariable: string | undefined;

  /** @throws McpConfigError for a server the toolkit does not have, or a template whose query variable cannot be told. */
  constructor(fields: McpResourceRetrieverInput) {
    super(fields);
    this.resources = fields.toolkit.resources;
    this.select = fields.select;
    this.missing = fields.missing ?? "skip";
    const servers = this.resources.requests.servers;
    const named = fields.select.by === "name" ? (fields.select.servers ?? []) : fields.select.server !== undefined ? [fields.select.server] : [];
    for (const server of named) if (!servers.includes(server)) throw new McpConfigError("select.server", `no server named '${server}' (servers: ${servers.join(", ")})`);
    this.queryVariable = fields.select.by === "template" ? queryVariableOf(fields.select) : undefined;
  }

  override async _getRelevantDocuments(query: string, _run?: CallbackManagerForRetrieverRun): Promise<Document<ResourceDocumentMetadata>[]> {
    const select = this.select;
    if (select.by === "name") return this.byName(query, select);
    const uri = select.by === "uri" ? query.trim() : expandTemplate(select.uriTemplate, this.variablesFor(query, select), TOOL_NAME);
    if (uri === "") return [];
    const server = select.server ?? (await this.serverOf(uri).catch((error: unknown) => this.skipMissing(error)));
    return server === undefined ? [] : this.readAll([{ server, uri }]);
  }

  /** `undefined` for a URI that names nothing, where such a one is no Document; else the error, thrown. */
  private skipMissing(error: unknown): undefined {
    if (isMcpToolError(error) && error.reason === "resource_not_found" && this.missing === "skip") return undefined;
    throw error;
  }

  private variablesFor(query: string, select: Extract<ResourceSelection, { by: "template" }>): TemplateVariables {
    if (typeof select.variables === "function") return select.variables(query);
    return { ...select.variables, [this.queryVariable!]: query };
  }

  /** The server of a URI: the only one, else the one that lists it (or a template it fits) by a fresh list of every server. */
  private async serverOf(uri: string): Promise<string> {
    const servers = this.resources.requests.servers;
    if (servers.length === 1) return servers[0]!;
    const known = this.resources.serverOf(uri, servers, matchesTemplate);
    if (known) return known;
    const { failures } = await this.resources.list();
    const found = this.resources.serverOf(uri, servers, matchesTemplate);
    if (found) return found;
    // A server that could not be listed may be the one: that is its failure, not a missing resource.
    if (failures[0]) throw failures[0].error;
    throw McpToolError.of("resource_not_found", `No server lists the resource '${uri}' (servers: ${servers.join(", ")}).`, { toolName: TOOL_NAME, data: { uri } });
  }

  private async byName(query: string, select: Extract<ResourceSelection, { by: "name" }>): Promise<Document<ResourceDocumentMetadata>[]> {
    const words = wordsOf(query);
    if (words.length === 0) return [];
    // Every server leaves out those without resources; servers named are each listed, and must have some.
    const listing = select.servers ? await Promise.all(select.servers.map((server) => this.resources.list(server))) : [await this.resources.list()];
    const failure = listing.flatMap((l) => l.failures)[0];
    if (failure) throw failure.error;
    const scored = listing
      .flatMap((l) => l.resources)
      .map((resource, order) => ({ resource, order, score: scoreOf(resource, words, query) }))
      .filter((r) => r.score > 0)
      .sort((a, b) => b.score - a.score || a.order - b.order)
      .slice(0, select.k ?? DEFAULT_NAME_MATCHES);
    return this.readAll(scored.map(({ resource }) => ({ server: resource.server, uri: resource.uri })));
  }

  /** Reads every target together; Documents in the targets' order, and the first failure (in that order) thrown. */
  private async readAll(targets: { server: string; uri: string }[]): Promise<Document<ResourceDocumentMetadata>[]> {
    const settled = await Promise.allSettled(targets.map((t) => this.resources.read(t.server, t.uri)));
    const docs: Document<ResourceDocumentMetadata>[] = [];
    for (const outcome of settled) {
      if (outcome.status === "fulfilled") {
        docs.push(...(outcome.value as Document<ResourceDocumentMetadata>[]));
        continue;
      }
      this.skipMissing(outcome.reason);
    }
    return docs;
  }
}

function queryVariableOf(select: Extract<ResourceSelection, { by: "template" }>): string | undefined {
  if (typeof select.variables === "function") return undefined;
  const names = variablesOf(select.uriTemplate);
  if (select.variable !== undefined) {
    if (!names.includes(select.variable)) throw new McpConfigError("select.variable", `the template '${select.uriTemplate}' has no variable '${select.variable}' (it has: ${names.join(", ") || "none"})`);
    return select.variable;
  }
  const open = names.filter((n) => !(select.variables && Object.hasOwn(select.variables, n)));
  if (open.length === 1) return open[0];
  throw new McpConfigError("select.variable", `name the variable the query fills: the template '${select.uriTemplate}' leaves ${open.length === 0 ? "none" : open.join(", ")} open`);
}

/** The query's words, lower-cased: letters and digits, two or more. */
function wordsOf(text: string): string[] {
  return [...new Set(text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 1))];
}

/** How well a resource matches: each query word found in its name, title or description, weighted by where; the whole query as its name or title counts most. */
function scoreOf(resource: ResourceInfo, words: string[], query: string): number {
  const fields = { name: resource.name.toLowerCase(), title: resource.title?.toLowerCase() ?? "", description: resource.description?.toLowerCase() ?? "" };
  let score = 0;
  for (const word of words) for (const field of ["name", "title", "description"] as const) if (fields[field].includes(word)) score += WEIGHTS[field];
  const whole = query.trim().toLowerCase();
  if (whole === fields.name || whole === fields.title) score += 10;
  return score;
}
