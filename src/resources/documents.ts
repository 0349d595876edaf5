/**
 * A read's contents as LangChain Documents, one per content item: text as it is; a blob (base64)
 * described in one line, its base64 kept in `metadata.blob`, so a loader or a splitter never
 * mistakes a PDF's base64 for its text, and nothing of it is lost.
 */
import type { ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";

/** What each Document's `metadata` holds. */
export interface ResourceDocumentMetadata extends Record<string, unknown> {
  server: string;
  uri: string;
  mimeType?: string;
  annotations?: Record<string, unknown>;
  /** `annotations.lastModified`, where the server gave it (an ISO 8601 date). */
  lastModified?: string;
  /** The blob's base64, for a binary content item. */
  blob?: string;
  _meta?: Record<string, unknown>;
}

type Content = ReadResourceResult["contents"][number] & { annotations?: Record<string, unknown> };

/** The Documents' fields (`pageContent`, `metadata`) of a read's contents, in order. */
export function documentsOf(server: string, result: ReadResourceResult): { pageContent: string; metadata: ResourceDocumentMetadata }[] {
  return (result.contents as Content[]).map((content) => {
    const annotations = content.annotations;
    const lastModified = typeof annotations?.lastModified === "string" ? annotations.lastModified : undefined;
    const metadata: ResourceDocumentMetadata = {
      server,
      uri: content.uri,
      ...(content.mimeType ? { mimeType: content.mimeType } : {}),
      ...(annotations ? { annotations } : {}),
      ...(lastModified ? { lastModified } : {}),
      ...(content._meta ? { _meta: content._meta } : {}),
    };
    if ("text" in content && typeof content.text === "string") return { pageContent: content.text, metadata };
    const blob = "blob" in content && typeof content.blob === "string" ? content.blob : "";
    return { pageContent: describeBlob(content.uri, content.mimeType, blob), metadata: { ...metadata, blob } };
  });
}

/** "[binary image/png, 1,234 bytes: file:///logo.png]": a blob in one line. */
export function describeBlob(uri: string, mimeType: string | undefined, base64: string): string {
  return `[binary ${mimeType ?? "data"}, ${bytesOfBase64(base64).toLocaleString("en-US")} bytes: ${uri}]`;
}

/** How many bytes a base64 text holds, without decoding it. */
export function bytesOfBase64(base64: string): number {
  const clean = base64.replace(/\s+/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}
