/**
 * The `inputHandler` option: what answers a server's requests for input during a tool call (an
 * elicitation or a model completion). How the requests reach it, in either era, is
 * mcp/call/input.ts's.
 */
import type { CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult } from "@modelcontextprotocol/client";
import type { ProtocolEra } from "./clients.js";

/** Where an input request comes from. */
export interface InputContext {
  serverName: string;
  /** The tool whose call asked; unknown for a 2025-era request, which arrives on its own. */
  toolName?: string;
  era: ProtocolEra;
  /** Aborts when the call gives up (its caller aborted, its timeout ran out). */
  signal?: AbortSignal;
}

/** Answers a server's requests for input. Without one, the client declares no such capability. */
export interface InputHandler {
  /** An elicitation: a form to fill (`mode: "form"`) or a URL for a person to visit (`mode: "url"`). */
  elicit?: (request: ElicitRequest["params"], context: InputContext) => Promise<ElicitResult>;
  /** A model completion the server asks the client to make. */
  sample?: (request: CreateMessageRequest["params"], context: InputContext) => Promise<CreateMessageResult>;
}
