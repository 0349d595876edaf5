// The `langchain-mcp-errors/agents` entry: pieces for `createAgent` from the `langchain`
// package, kept out of the main entry so that using the toolkit does not require it.
export { mcpErrorMiddleware, mcpRetryOn, createMcpRetryOn } from "./langchain/middleware.js";
export type { McpErrorMiddlewareOptions, McpRetryOnOptions } from "./langchain/middleware.js";
export { langGraphInputHandler } from "./langchain/inputInterrupt.js";
export type { McpInputInterrupt } from "./langchain/inputInterrupt.js";
export { approvalFor, needsApproval } from "./langchain/approval.js";
export type { ApprovalCandidate, ApprovalOptions, ApprovalSource } from "./langchain/approval.js";
export { mcpPinnedResourcesMiddleware } from "./resources/pinMiddleware.js";
