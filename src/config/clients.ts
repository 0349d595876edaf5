/**
 * The MCP SDK's clients as the configuration names them: a connected client of either SDK line
 * (the `client` option), and the era a connection speaks (an input request's context, a catalog
 * entry). mcp/session/clients.ts works with them.
 */
import type { Client as V2Client } from "@modelcontextprotocol/client";
import type { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";

/** A connected client of either SDK line. */
export type AnyClient = V1Client | V2Client;

/** The protocol era a connection speaks: `modern` is 2026-07-28 and later, `legacy` the 2025 revisions. */
export type ProtocolEra = "modern" | "legacy";
