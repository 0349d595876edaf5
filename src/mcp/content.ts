import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { McpToolError } from "../errors/McpToolError.js";

/** One content block of a tool result, as the SDK types it. */
export type ContentBlock = CallToolResult["content"][number];

/** A LangChain content block for the model: text, or an image the model can see. */
export type ModelContentBlock =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } };

/** What a tool returns to LangChain with `responseFormat: "content_and_artifact"`. */
export interface ConvertedResult {
  content: string | ModelContentBlock[];
  artifact: ToolArtifact;
}

/** The artifact of a successful call: what the model does not read directly. */
export interface ToolArtifact {
  structuredContent?: Record<string, unknown>;
  /** Every non-text block, untouched. */
  blocks?: ContentBlock[];
  _meta?: Record<string, unknown>;
  /** Set when a fallback answered instead of the tool. */
  fallback?: { from: string; reason: string };
}

/** A one-line description of a block that is not text, so no block is silently dropped. */
export function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
      return `[image ${block.mimeType}, ${byteSize(block.data)}]`;
    case "audio":
      return `[audio ${block.mimeType}, ${byteSize(block.data)}]`;
    case "resource": {
      const r = block.resource;
      if ("text" in r && typeof r.text === "string") return `[resource ${r.uri}]\n${r.text}`;
      return `[resource ${r.uri}${r.mimeType ? ` ${r.mimeType}` : ""}, binary]`;
    }
    case "resource_link":
      return `[resource link ${block.uri}${block.name ? ` (${block.name})` : ""}]`;
    default:
      return `[${(block as { type: string }).type} block]`;
  }
}

/** All blocks as text, non-text ones summarised. */
export function contentText(content: readonly ContentBlock[] | undefined): string {
  return (Array.isArray(content) ? content : []).map(describeBlock).join("\n");
}

function byteSize(base64: string): string {
  const bytes = Math.floor((base64.length * 3) / 4);
  return bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${bytes} bytes`;
}

/**
 * Converts a successful result. Text stays text; images become image blocks the model can
 * see; everything else is described in text and kept whole in the artifact.
 */
export function convertResult(result: CallToolResult): ConvertedResult {
  const content = result.content ?? [];
  const artifact: ToolArtifact = {};
  if (result.structuredContent) artifact.structuredContent = result.structuredContent;
  if (result._meta) artifact._meta = result._meta;
  const nonText = content.filter((b) => b.type !== "text");
  if (nonText.length > 0) artifact.blocks = nonText;

  const hasImage = content.some((b) => b.type === "image");
  if (!hasImage) {
    let text = contentText(content);
    if (text === "" && result.structuredContent) text = structuredText(result.structuredContent);
    return { content: text, artifact };
  }
  const blocks: ModelContentBlock[] = content.map((b) =>
    b.type === "image"
      ? { type: "image_url", image_url: { url: `data:${b.mimeType};base64,${b.data}` } }
      : { type: "text", text: describeBlock(b) },
  );
  return { content: blocks, artifact };
}

/** Structured content as text. JSON nested too deep to stringify is a bad result, not a crash. */
function structuredText(value: Record<string, unknown>): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw McpToolError.of("invalid_result", `The server's structured content cannot be turned into text (${why}).`, { cause: error });
  }
}
