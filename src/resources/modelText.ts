/**
 * What the model reads of a resource and of a list: the text inside delimiters that name the
 * server and the URI (resource text is the server's input, not ours), one part within a budget
 * with a note saying how to read the next, images as image blocks, other binaries described in
 * one line and kept in the artifact.
 */
import type { ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import type { ModelContentBlock } from "../mcp/call/content.js";
import { bytesOfBase64, describeBlob } from "./documents.js";
import type { ResourceListing } from "./McpResources.js";

/** Images past this many bytes are described rather than shown: no model takes a larger one. */
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** How much of a server's description of a resource the list shows. */
const MAX_DESCRIPTION = 200;

/** Which part of a resource's text to show. */
export interface Part {
  offset: number;
  /** How many characters; the budget when the model gave none. */
  length: number;
  /** Did the model give the length (`limit`)? Then the next part's note repeats it. */
  asked: boolean;
}

/** What read_mcp_resource's ToolMessage holds besides the model's text. */
export interface ReadArtifact {
  server: string;
  uri: string;
  /** The characters shown, `[offset, end)`, of `total`. */
  range: { offset: number; end: number; total: number };
  mimeType?: string;
  /** Binary contents that are not shown as images, whole. */
  blobs?: { uri: string; mimeType?: string; blob: string }[];
}

/** The model's reply to a read: its content (text, or text and images) and the artifact. */
export function readReply(server: string, uri: string, result: ReadResourceResult, part: Part, named: boolean): [string | ModelContentBlock[], ReadArtifact] {
  const texts: string[] = [];
  const images: ModelContentBlock[] = [];
  const lines: string[] = [];
  const blobs: NonNullable<ReadArtifact["blobs"]> = [];
  for (const content of result.contents) {
    if ("text" in content && typeof content.text === "string") {
      texts.push(content.text);
      continue;
    }
    const blob = "blob" in content && typeof content.blob === "string" ? content.blob : "";
    const isImage = content.mimeType?.startsWith("image/") === true && bytesOfBase64(blob) <= MAX_IMAGE_BYTES;
    if (isImage) images.push({ type: "image_url", image_url: { url: `data:${content.mimeType};base64,${blob}` } });
    else {
      lines.push(`${describeBlob(content.uri, content.mimeType, blob)} (kept whole in the tool message's artifact)`);
      blobs.push({ uri: content.uri, ...(content.mimeType ? { mimeType: content.mimeType } : {}), blob });
    }
  }
  const whole = texts.join("\n\n");
  const total = whole.length;
  const start = Math.min(part.offset, total);
  const end = cutAt(whole, Math.min(total, start + part.length));
  const mimeType = result.contents[0]?.mimeType;
  const range = end - start < total ? `${start}-${end} of ${total}` : undefined;
  const open = openTag(server, uri, { mimeType: mimeType || undefined, characters: range });
  const body = texts.length > 0 ? escapeClose(whole.slice(start, end)) : "";
  const text = [open, ...(body ? [body] : []), ...lines, CLOSE_TAG];
  if (end < total) {
    const next = `offset ${end}${part.asked ? `, limit ${part.length}` : ""}`;
    text.push(`[Showing characters ${start}-${end} of ${total}. To read the next part, call read_mcp_resource with uri "${uri}"${named ? `, server "${server}"` : ""} and ${next}.]`);
  }
  const artifact: ReadArtifact = { server, uri, range: { offset: start, end, total }, ...(mimeType ? { mimeType } : {}), ...(blobs.length > 0 ? { blobs } : {}) };
  const joined = text.join("\n");
  return [images.length > 0 ? [{ type: "text", text: joined }, ...images] : joined, artifact];
}

/** The list the model reads: one line per resource and template, `max` of them from `offset`, and the servers that failed. */
export function listText(listing: ResourceListing, offset: number, max: number, redact: (text: string) => string): string {
  const entries = [
    ...listing.resources.map((r) => `- server "${r.server}", uri "${r.uri}", name "${oneLine(r.title ?? r.name)}"${about(r.description)}${details(r.mimeType, r.size)}`),
    ...listing.templates.map((t) => `- template: server "${t.server}", uriTemplate "${t.uriTemplate}", name "${oneLine(t.title ?? t.name)}"${about(t.description)}${details(t.mimeType)}`),
  ];
  const shown = entries.slice(offset, offset + max);
  const out: string[] = [];
  if (entries.length === 0) out.push("No resources are listed by the servers offered.");
  else {
    out.push(`${listing.resources.length} resources and ${listing.templates.length} templates. Read one with read_mcp_resource: a resource by its uri; a template by its uriTemplate as uri, with its {variables} in variables.`);
    out.push(...shown);
    const end = offset + shown.length;
    if (end < entries.length) out.push(`[Showing entries ${offset + 1}-${end} of ${entries.length}. Call list_mcp_resources with offset ${end} for the next ones.]`);
    else if (shown.length === 0) out.push(`[No entries from offset ${offset}: there are ${entries.length}.]`);
  }
  for (const { server, error } of listing.failures) out.push(`Server '${server}' could not be listed (${error.reason}): ${oneLine(redact(error.message))}`);
  return out.join("\n");
}

function about(description: string | undefined): string {
  return description ? `: ${oneLine(description)}` : "";
}

function details(mimeType: string | undefined, size?: number): string {
  const parts = [mimeType, size !== undefined ? `${size} bytes` : undefined].filter(Boolean);
  return parts.length > 0 ? ` (${parts.join(", ")})` : "";
}

/** A server's words on one line, cut: they go into the model's context. */
function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > MAX_DESCRIPTION ? `${line.slice(0, MAX_DESCRIPTION)}…` : line;
}

/** The delimiter a resource's text ends with. */
export const CLOSE_TAG = "</mcp-resource>";

/** The delimiter a resource's text starts with: it names the server and the URI, then the `attributes` given. */
export function openTag(server: string, uri: string, attributes: Record<string, string | undefined> = {}): string {
  const more = Object.entries(attributes)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => ` ${name}="${attr(value)}"`)
    .join("");
  return `<mcp-resource server="${attr(server)}" uri="${attr(uri)}"${more}>`;
}

/** A value inside a delimiter's attribute: its quotes and brackets cannot close the delimiter. */
function attr(value: string): string {
  return value.replace(/[<>"]/g, (c) => ({ "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);
}

/** The resource's text cannot close the delimiter it stands in. */
export function escapeClose(text: string): string {
  return text.replace(/<\/(mcp-resource)/gi, "<\\/$1");
}

/** `end`, moved back one where it would split a surrogate pair. */
export function cutAt(text: string, end: number): number {
  if (end <= 0 || end >= text.length) return end;
  const last = text.charCodeAt(end - 1);
  return last >= 0xd800 && last <= 0xdbff ? end - 1 : end;
}
