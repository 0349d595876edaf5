import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

// Lives in errors/ because an error result's message is its content's text; mcp/call/content.ts
// re-exports it for successful results, so errors/ never imports from mcp/.

/** One content block of a tool result, as the SDK types it. */
export type ContentBlock = CallToolResult["content"][number];

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
