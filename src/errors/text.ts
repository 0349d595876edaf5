import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { fromResult } from "./fromResult.js";
import { McpToolError, type McpToolErrorJSON, type McpToolErrorOptions } from "./McpToolError.js";
import { normalize, stripMcpPrefix } from "./normalize.js";
import { decidedByCaller, HINTS, isReason, reasonInfo, REASONS, type HintKey } from "./reasons.js";
import { exactValues, longestSecret, MIN_SECRET_LENGTH, redact, redactExact, redactValue, type RedactOptions } from "./redact.js";

/**
 * The longest message the model reads, in characters. The configuration schema reads it as
 * the default of `errors.maxLength`, so errors/ depends on nothing above it.
 * @default 1000
 */
export const DEFAULT_MAX_LENGTH = 1000;

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


/** Said instead of an empty message, so the model never reads "failed: ." */
export const NO_MESSAGE = "No error message was given.";

// When a message is cut before pattern redaction, this much of the cut end is dropped too
// (plus three times the longest configured secret, for a secret cut at the raw cap, which
// redaction of the secrets inside it can lengthen): a token cut in half there may no longer
// be recognisable. Every built-in shape is recognised from far fewer characters than this
// (a JWT from its header, a key from 16 to 20), so a longer remnant is still redacted.
const CUT_GUARD = 512;

// ANSI CSI/OSC sequences, charset designations (the "\u001b(B" of `tput sgr0`), other
// two-byte escapes and the 8-bit CSI.
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[()*+\-./][0-~]|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]/g;
// C0/C1 controls other than newline and tab; invisible format characters (zero-width,
// bidi overrides, BOM) and Unicode tags, which can hide text from a reader but not a model.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|\udb40[\udc00-\udc7f]/g;
// Stack frames: V8 ("at f (file:1:2)", "at file:1:2", "at new Promise (<anonymous>)",
// "at async Promise.all (index 0)"), Java ("at a.B.c(B.java:12)", "... 3 more") and Python
// tracebacks (the header and its indented lines; the final "ValueError: …" line stays).
// Horizontal whitespace only, and one start per line, so the scan stays linear.
const STACK_LINE =
  /^[ \t]*at (?:async |new )?[^\s()]*(?: \[as [^\]\n]*\])? ?\((?:[^()\n]*:\d+(?::\d+)?|<anonymous>|native|index \d+|Native Method|Unknown Source|eval at [^\n]*)\)[ \t]*$|^[ \t]*at (?:async )?[^\s()]+:\d+:\d+[ \t]*$|^[ \t]*\.\.\. \d+ more[ \t]*$/gm;
const PY_TRACEBACK = /^Traceback \(most recent call last\):[ \t]*(?:\n[ \t]+[^\n]*)*/gm;

/** Removes repeated "MCP error" prefixes, stack frames, ANSI escapes and control characters. */
export function cleanMessage(message: string): string {
  return stripMcpPrefix(withoutTraces(cleanInline(message)).trim()).trim();
}

/** Stack frames and tracebacks out, blank lines closed up; one-line text has none of them. */
function withoutTraces(text: string): string {
  if (!text.includes("\n") && !/^[ \t]*(?:at |\.\.\. )|^Traceback /.test(text)) return text;
  return text.replace(STACK_LINE, "").replace(PY_TRACEBACK, "").replace(/\n{2,}/g, "\n");
}

/** The character-level part of cleaning: escapes and control characters out, CR/CRLF to LF. */
function cleanInline(text: string): string {
  // Lone surrogates (a server's broken UTF-16) become U+FFFD, so model text is well-formed.
  const wellFormed = text.toWellFormed();
  // Every escape starts with a character REMOVABLE finds; CONTROL adds only CR.
  if (!REMOVABLE.test(wellFormed) && !wellFormed.includes("\r")) return wellFormed;
  return wellFormed.replace(ANSI, "").replace(/\r\n?/g, "\n").replace(CONTROL, "");
}

/** Cuts `text` to `maxLength` characters and says how much was cut. */
export function truncate(text: string, maxLength: number = DEFAULT_MAX_LENGTH, originalLength = text.length): string {
  if (originalLength <= maxLength && text.length <= maxLength) return text;
  const kept = sliceWhole(text, Math.max(0, maxLength));
  return `${kept}… [${Math.max(0, originalLength - kept.length)} more characters cut]`;
}

/** `text.slice(0, end)` without leaving half of a surrogate pair at the end. */
function sliceWhole(text: string, end: number): string {
  const kept = text.slice(0, end);
  const last = kept.charCodeAt(kept.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? kept.slice(0, -1) : kept;
}

// Past this many characters per character shown (and at least 64 KiB), a message is cut before
// anything else, so the cost stops growing with it: a 1 MB message escaped in ANSI took ~50 ms
// to clean in full, blocking the event loop, for text the model never sees.
const RAW_PER_SHOWN = 32;
const RAW_FLOOR = 64 * 1024;

// Characters cleaning removes from inside a line: where one stands, cleaning can glue a
// token to the word before it, or an escape can swallow a token's first letter.
// eslint-disable-next-line no-control-regex
const REMOVABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|\udb40[\udc00-\udc7f]/;

/**
 * The message as a model may read it: cleaned, redacted, then cut, reporting the cut.
 *
 * Redaction runs both before cleaning (a secret holding control characters, a token that
 * cleaning would glue to a word or take a letter from) and after it (a secret split by an
 * ANSI escape). A very long message is cut first, to a head many times the length shown, so
 * the cost does not grow with it; the cut's last characters are dropped, as after every cut,
 * so no half of a secret or token standing across it can show. The part never read is
 * counted by the head's own ratio of clean to raw characters, and the count then says
 * "about".
 */
export function safeMessage(message: string, options: ModelTextOptions = {}): string {
  const max = options.maxLength ?? DEFAULT_MAX_LENGTH;
  const exact = exactValues(options);
  const guard = CUT_GUARD + 3 * longestSecret(options);
  let raw = String(message);
  let unread = 0;
  const rawCap = Math.max(RAW_FLOOR, max * RAW_PER_SHOWN);
  if (raw.length > rawCap) {
    const head = sliceWhole(raw, rawCap);
    unread = raw.length - head.length;
    raw = head;
  }
  raw = REMOVABLE.test(raw) ? redact(raw, options) : redactExact(raw, exact);
  const cleaned = redactExact(cleanMessage(raw), cleanedValues(exact));
  let dropped = unread === 0 ? 0 : Math.round((unread * cleaned.length) / Math.max(1, raw.length));
  const budget = max * 2 + guard + 4096;
  let head = cleaned;
  if (cleaned.length > budget) {
    head = sliceWhole(cleaned, budget);
    dropped += cleaned.length - head.length;
  }
  const redacted = redact(head, options);
  if (dropped === 0 && unread === 0) return truncate(redacted, max);
  const safe = redacted.slice(0, Math.max(0, redacted.length - guard));
  const text = truncate(safe, max, redacted.length + dropped);
  return unread === 0 ? text : text.replace(/… \[(\d+) more characters cut\]$/, "… [about $1 more characters cut]");
}

/**
 * The exact values as cleaning may leave them, for a secret that held control characters
 * and also stands split by an escape, so only the cleaned text shows it whole.
 */
function cleanedValues(values: readonly string[]): readonly string[] {
  if (values.length === 0) return values;
  const cached = cleanedCache.get(values);
  if (cached) return cached;
  const out = new Set(values);
  for (const v of values) {
    for (const c of [cleanInline(v).replace(/\n{2,}/g, "\n").trim(), v.replace(/\r\n?/g, "\n").replace(CONTROL, "")]) {
      if (c.length >= MIN_SECRET_LENGTH) out.add(c);
    }
  }
  const sorted = [...out].sort((a, b) => b.length - a.length);
  cleanedCache.set(values, sorted);
  return sorted;
}

// Keyed by exactValues' own (cached, never changed) list, so a toolkit works these out once.
const cleanedCache = new WeakMap<readonly string[], readonly string[]>();

/**
 * The one line the model reads:
 * `Error: Tool '<name>' failed (<reason>): <message> <hint>`, or, for an error that names no
 * tool (a connect, a list), `Error: The MCP call failed (<reason>): <message> <hint>`.
 */
export function toModelText(error: unknown, options: ModelTextOptions = {}): string {
  return modelLine(normalize(error, options.toolName ? { toolName: options.toolName } : {}), options);
}

function modelLine(e: McpToolError, options: ModelTextOptions, safe: string = safeMessage(e.message, options)): string {
  const name = cleanName(e.toolName ?? options.toolName);
  const attempts = e.attempts > 1 ? ` after ${e.attempts} attempts` : "";
  // No name to give: "Tool 'unknown'" would send the model looking for a tool of that name.
  const what = name === undefined ? "The MCP call" : `Tool '${name}'`;
  return `Error: ${what} failed (${e.reason})${attempts}: ${endSentence(safe || NO_MESSAGE)} ${hintFor(e, options)}`;
}

/**
 * What a failed tool call hands back: the model's line and the artifact, cleaned and redacted
 * once for both (the costly step on the error path).
 */
export function toModelReply(error: McpToolError, options: ModelTextOptions = {}): { text: string; artifact: McpToolErrorJSON } {
  const safe = safeMessage(error.message, options);
  return { text: modelLine(error, options, safe), artifact: toSafeJSON(error, options, safe) };
}

/**
 * {@link toModelReply} for an error {@link redactError} already made safe: its message and data
 * are used as they are, not cleaned and redacted again.
 */
export function replyFrom(redacted: McpToolError, options: ModelTextOptions = {}): { text: string; artifact: McpToolErrorJSON } {
  return { text: modelLine(redacted, options, redacted.message), artifact: redacted.toJSON() };
}

/** The sentence telling the model what to do next. */
export function hintFor(error: McpToolError, options: { idempotent?: boolean } = {}): string {
  // A reason from outside the table (a cast, a deserialized error) must not throw here.
  const key: HintKey = isReason(error.reason) ? REASONS[error.reason].hint : "use_another_tool";
  if (key === "person_must_act" || key === "fix_arguments") return HINTS[key];
  if (error.outcome === "unknown" && !options.idempotent && !decidedByCaller(error.reason)) return HINTS.unknown_outcome;
  // A guard (the breaker) stopped the retries with attempts left: they were not exhausted.
  if (error.transient && error.attempts > 1 && !reasonInfo(error.reason).byGuard) return HINTS.retries_exhausted;
  if (error.transient) return HINTS[key];
  return HINTS[key === "try_later" || key === "reconnect" ? "use_another_tool" : key];
}

function endSentence(text: string): string {
  return /[.!?…\]]$/.test(text) ? text : `${text}.`;
}

const KIND_LABEL: Record<string, string> = {
  protocol: "MCP protocol error",
  transport: "MCP transport error",
  domain: "Tool execution failed",
  client: "MCP client error",
};

/** A tool name as the model may read it: one line, no control characters, bounded; `undefined` when nothing is left. */
function cleanName(name: string | undefined): string | undefined {
  const clean = String(name ?? "").replace(ANSI, "").replace(CONTROL, "").replace(/[\n\t]+/g, " ").trim();
  return clean ? sliceWhole(clean, 200) : undefined;
}

/** A readable string for any error, e.g. "MCP protocol error (invalid_params): …". */
export function handleError(error: unknown, options: ModelTextOptions = {}): string {
  const e = normalize(error);
  return `${KIND_LABEL[e.kind] ?? "MCP error"} (${e.reason}): ${safeMessage(e.message, options) || NO_MESSAGE}`;
}

/** A readable string for an `isError` result, e.g. "Tool execution failed: quota exceeded". */
export function handleResponseError(result: CallToolResult | unknown, options: ModelTextOptions = {}): string {
  const e = fromResult(result);
  if (!e) return "Tool execution failed: the result was not marked as an error.";
  return `Tool execution failed: ${safeMessage(e.message, options) || NO_MESSAGE}`;
}

/**
 * "Tool 'search' failed: …" with the arguments echoed, their secret-named values redacted
 * and their text passed through the same redaction as the message.
 */
export function wrapToolError(error: unknown, toolName: string, args?: unknown, options: ModelTextOptions = {}): string {
  const e = normalize(error, { toolName });
  let text = `Tool '${cleanName(toolName) ?? "unknown"}' failed (${e.reason}): ${safeMessage(e.message, options) || NO_MESSAGE}`;
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

/**
 * The one redaction every error gets where it leaves the library: the error `connect()` rejects
 * with, events, an error thrown in `errors.mode: "throw"`, span status, `doctor`. A copy whose
 * message and data are cleaned and redacted as the model's text is, with no `cause`: the original
 * (its raw message, data and cause) stays reachable only through `unredacted()`, which is neither
 * enumerated, nor printed by `util.inspect`, nor serialized.
 */
export function redactError(error: McpToolError, options: ModelTextOptions = {}): McpToolError {
  // Built on the JSON's own object, not spread into a new one: on the error path each spread cost more than the redaction.
  const json = toSafeJSON(error, options) as Partial<McpToolErrorJSON> & McpToolErrorOptions;
  delete json.name;
  json.redactedFrom = error;
  return new McpToolError(json);
}

/** The `McpToolError` as JSON with a model-safe message, for a ToolMessage artifact. */
export function toSafeJSON(error: McpToolError, options: ModelTextOptions = {}, safe?: string): McpToolErrorJSON {
  const json = error.toJSON();
  json.message = safe ?? safeMessage(json.message, options);
  if (json.data !== undefined) {
    try {
      json.data = redactValue(json.data, options);
    } catch {
      json.data = "[unreadable data]"; // a throwing getter must not turn one error into two
    }
  }
  return json;
}
