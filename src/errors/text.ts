import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { fromResult } from "./fromResult.js";
import { McpToolError } from "./McpToolError.js";
import { normalize, stripMcpPrefix } from "./normalize.js";
import { HINTS, REASONS } from "./reasons.js";
import { longestSecret, redact, redactValue, type RedactOptions } from "./redact.js";

/** Options for the text a model reads. */
export interface ModelTextOptions extends RedactOptions {
  /**
   * The longest message kept, in characters; the rest is cut and the cut is reported.
   * @default 1000
   */
  maxLength?: number;
  /**
   * Is a repeat of this tool safe (idempotent or read-only)? When it is not known to be,
   * an `unknown` outcome tells the model to check before repeating.
   * @default false
   */
  idempotent?: boolean;
  /** The name the model called, when the error does not carry it. */
  toolName?: string;
}

/** @default 1000 */
export const DEFAULT_MAX_LENGTH = 1000;

// ANSI CSI/OSC sequences and C0/C1 control characters other than newline and tab.
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]/g;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const STACK_LINE = /^\s*at\s+(?:.+\(.*:\d+:\d+\)|.+:\d+:\d+|<anonymous>|native)\s*$/gm;

/** Removes repeated "MCP error" prefixes, stack frames, ANSI escapes and control characters. */
export function cleanMessage(message: string): string {
  return stripMcpPrefix(
    message
      .replace(ANSI, "")
      .replace(STACK_LINE, "")
      .replace(CONTROL, "")
      .replace(/\n{2,}/g, "\n")
      .trim(),
  ).trim();
}

/** Cuts `text` to `maxLength` characters and says how much was cut. */
export function truncate(text: string, maxLength: number = DEFAULT_MAX_LENGTH, originalLength = text.length): string {
  if (originalLength <= maxLength && text.length <= maxLength) return text;
  const kept = text.slice(0, Math.max(0, maxLength));
  return `${kept}… [${originalLength - kept.length} more characters cut]`;
}

/**
 * The message as a model may read it: cleaned, redacted, then cut. Huge inputs are cut
 * first (with room for the longest configured secret) so the cost does not grow with them.
 */
export function safeMessage(message: string, options: ModelTextOptions = {}): string {
  const max = options.maxLength ?? DEFAULT_MAX_LENGTH;
  const budget = max * 2 + Math.max(4096, longestSecret(options) * 2);
  const head = message.length > budget ? message.slice(0, budget) : message;
  const cleaned = cleanMessage(head);
  const redacted = redact(cleaned, options);
  const dropped = message.length - head.length;
  return truncate(redacted, max, redacted.length + dropped);
}

/**
 * The one line the model reads:
 * `Error: Tool '<name>' failed (<reason>): <message> <hint>`.
 */
export function toModelText(error: unknown, options: ModelTextOptions = {}): string {
  const e = normalize(error, options.toolName ? { toolName: options.toolName } : {});
  const name = e.toolName ?? options.toolName ?? "unknown";
  const attempts = e.attempts > 1 ? ` after ${e.attempts} attempts` : "";
  const message = safeMessage(e.message, options);
  return `Error: Tool '${name}' failed (${e.reason})${attempts}: ${endSentence(message)} ${hintFor(e, options)}`;
}

/** The sentence telling the model what to do next. */
export function hintFor(error: McpToolError, options: { idempotent?: boolean } = {}): string {
  const key = REASONS[error.reason].hint;
  if (key === "person_must_act" || key === "fix_arguments") return HINTS[key];
  if (error.outcome === "unknown" && !options.idempotent && error.reason !== "cancelled") return HINTS.unknown_outcome;
  if (error.transient && error.attempts > 1) return HINTS.retries_exhausted;
  if (error.transient) return HINTS[key];
  return HINTS[key === "try_later" || key === "reconnect" ? "use_another_tool" : key];
}

function endSentence(text: string): string {
  return /[.!?…\]]$/.test(text) ? text : `${text}.`;
}

const KIND_LABEL = { protocol: "MCP protocol error", transport: "MCP transport error", domain: "Tool execution failed", client: "MCP client error" };

/** A readable string for any error, e.g. "MCP protocol error (invalid_params): …". */
export function handleError(error: unknown, options: ModelTextOptions = {}): string {
  const e = normalize(error);
  return `${KIND_LABEL[e.kind]} (${e.reason}): ${safeMessage(e.message, options)}`;
}

/** A readable string for an `isError` result, e.g. "Tool execution failed: quota exceeded". */
export function handleResponseError(result: CallToolResult | unknown, options: ModelTextOptions = {}): string {
  const e = fromResult(result);
  if (!e) return "Tool execution failed: the result was not marked as an error.";
  return `Tool execution failed: ${safeMessage(e.message, options)}`;
}

/**
 * "Tool 'search' failed: …" with the arguments echoed, their secret-named values redacted
 * and their text passed through the same redaction as the message.
 */
export function wrapToolError(error: unknown, toolName: string, args?: unknown, options: ModelTextOptions = {}): string {
  const e = normalize(error, { toolName });
  let text = `Tool '${toolName}' failed (${e.reason}): ${safeMessage(e.message, options)}`;
  if (args !== undefined) {
    let json: string;
    try {
      json = JSON.stringify(redactValue(args, options)) ?? String(args);
    } catch {
      json = "[unserializable arguments]";
    }
    text += ` Arguments: ${safeMessage(json, { ...options, maxLength: Math.min(options.maxLength ?? DEFAULT_MAX_LENGTH, 500) })}`;
  }
  return text;
}

/** The `McpToolError` as JSON with a model-safe message, for a ToolMessage artifact. */
export function toSafeJSON(error: McpToolError, options: ModelTextOptions = {}): ReturnType<McpToolError["toJSON"]> {
  const json = error.toJSON();
  json.message = safeMessage(json.message, options);
  if (json.data !== undefined) json.data = redactValue(json.data, options);
  return json;
}
