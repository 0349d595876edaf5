/**
 * A prompt's messages as LangChain messages: `user` is a HumanMessage, `assistant` an AIMessage.
 * A message of text alone keeps its text as a string (every model reads that); any other block
 * becomes a standard content block of @langchain/core 1.x: `image`, `audio`, an embedded resource
 * as `text-plain` (its text) or by its MIME type as `image`, `audio`, `video` or `file` (its
 * base64 blob), and a resource link as a `file` block with its `url`. Each resource's URI is in
 * the block's `metadata.uri`.
 */
import { AIMessage, HumanMessage, type BaseMessage, type ContentBlock } from "@langchain/core/messages";
import type { GetPromptResult } from "@modelcontextprotocol/sdk/types.js";
import { describeBlock, type ContentBlock as McpBlock } from "../errors/contentText.js";

type PromptMessage = GetPromptResult["messages"][number];

export function toMessages(result: GetPromptResult): BaseMessage[] {
  return result.messages.map(toMessage);
}

function toMessage(message: PromptMessage): BaseMessage {
  const block = message.content as McpBlock;
  const Message = message.role === "assistant" ? AIMessage : HumanMessage;
  if (block.type === "text") return new Message({ content: block.text });
  return new Message({ contentBlocks: [standardBlock(block)] });
}

/** One MCP content block as a standard content block. */
export function standardBlock(block: McpBlock): ContentBlock.Standard {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "image":
      return { type: "image", mimeType: block.mimeType, data: block.data };
    case "audio":
      return { type: "audio", mimeType: block.mimeType, data: block.data };
    case "resource": {
      const r = block.resource;
      const metadata = { uri: r.uri };
      if ("text" in r && typeof r.text === "string") {
        // The text travels as `text`; a text-plain block's type also asks for data, which the text is.
        return { type: "text-plain", mimeType: r.mimeType ?? "text/plain", text: r.text, data: r.text, metadata } as ContentBlock.Standard;
      }
      const blob = (r as { blob: string }).blob;
      const mimeType = r.mimeType ?? "application/octet-stream";
      return { type: blobType(mimeType), mimeType, data: blob, metadata };
    }
    case "resource_link": {
      const metadata = { uri: block.uri, name: block.name, ...(block.description ? { description: block.description } : {}) };
      return { type: "file", url: block.uri, ...(block.mimeType ? { mimeType: block.mimeType } : {}), metadata };
    }
    default:
      // A block type newer than this library: said in words, never dropped.
      return { type: "text", text: describeBlock(block) };
  }
}

function blobType(mimeType: string): "image" | "audio" | "video" | "file" {
  const kind = mimeType.split("/")[0];
  return kind === "image" || kind === "audio" || kind === "video" ? kind : "file";
}
