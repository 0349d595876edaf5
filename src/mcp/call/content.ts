import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { contentText, describeBlock, type ContentBlock } from "../../errors/contentText.js";
import { McpToolError } from "../../errors/McpToolError.js";
import { fallbackNote, type FallbackNote } from "../../policy/FallbackPolicy.js";

export { contentText, describeBlock, type ContentBlock } from "../../errors/contentText.js";

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
  /** The whole text, when the model's copy was cut to `maxResultLength`. */
  text?: string;
  /** Set when a fallback answered instead of the tool. */
  fallback?: { from: string; reason: string };
}

/**
 * Converts a successful result. Text stays text; images become image blocks the model can
 * see; everything else is described in text and kept whole in the artifact.
 */
export function convertResult(result: CallToolResult, maxLength = Number.POSITIVE_INFINITY): ConvertedResult {
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
    return { content: bounded(text, maxLength, artifact), artifact };
  }
  // Images are not text: the bound is on the text around them, shared across the blocks.
  let budget = maxLength;
  const blocks: ModelContentBlock[] = content.map((b) => {
    if (b.type === "image") return { type: "image_url", image_url: { url: `data:${b.mimeType};base64,${b.data}` } };
    const text = bounded(describeBlock(b), Math.max(0, budget), artifact);
    budget -= text.length;
    return { type: "text", text };
  });
  return { content: blocks, artifact };
}

/**
 * Text past `maxLength` is cut with a note of how much, and the whole text is kept in the
 * artifact's `text`: the model's next call must fit its context, your code may want it all.
 */
function bounded(text: string, maxLength: number, artifact: ToolArtifact): string {
  if (text.length <= maxLength) return text;
  artifact.text = (artifact.text ?? "") + text;
  const last = text.charCodeAt(maxLength - 1);
  const kept = text.slice(0, last >= 0xd800 && last <= 0xdbff ? maxLength - 1 : maxLength);
  return `${kept}… [${text.length - kept.length} more characters cut; the full result is in the tool message's artifact]`;
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

/** Tells the model, first thing, that a fallback answered and why. */
export function withFallbackNote(converted: ConvertedResult, fallback: FallbackNote | undefined): [ConvertedResult["content"], unknown] {
  if (!fallback) return [converted.content, converted.artifact];
  const note = fallbackNote(fallback);
  const content = typeof converted.content === "string" ? `${note}\n${converted.content}` : [{ type: "text" as const, text: note }, ...converted.content];
  // Only the note: the primary's error object stays out of the artifact the model's history keeps.
  return [content, { ...converted.artifact, fallback: { from: fallback.from, reason: fallback.reason } }];
}

