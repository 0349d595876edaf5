/**
 * A tool policy: what a `tools` key sets for the tools it matches, layered over the server's and
 * the toolkit's options and resolved once per tool (policy/resolve.ts). Each default is stated
 * here once, with its `@default` tag.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import type { McpToolError } from "../errors/McpToolError.js";
import { custom, flag, number, oneOf, options } from "./fields.js";
import { RetryOptionsSchema } from "./policies.js";
import { ChaosSettingSchema } from "./chaos.js";

/**
 * Answers in place of a failed primary. `signal` aborts when the caller gives up or the call's
 * timeout runs out; the call settles then whether or not the function heeds it.
 */
export type FallbackFunction = (args: Record<string, unknown>, error: McpToolError, signal: AbortSignal) => Promise<string | CallToolResult>;

/** A read-only tool's hedged calls (`hedge`). */
export const HedgeOptionsSchema = options({
  /**
   * How long an attempt may go unanswered before the next is sent beside it, in milliseconds, or
   * `"p95"`: the 95th percentile of the tool's own recent attempts (its last 100 that answered),
   * never below `minDelayMs`; until 20 have answered, only a failure sends the next.
   */
  delayMs: custom<number | "p95">("a number of milliseconds or \"p95\"", (v) => v === "p95" || (typeof v === "number" && Number.isFinite(v) && v >= 0)),
  /** The most attempts one call sends, the first included (gRPC's `maxAttempts`). @default 2 */
  maxAttempts: number({ min: 2, max: 10, integer: true }).default(2),
  /** The least delay `"p95"` gives, in milliseconds. @default 20 */
  minDelayMs: number().default(20),
});
export interface HedgeOptions extends z.input<typeof HedgeOptionsSchema> {}

/** Policy for the tools a `tools` key matches. */
export const ToolPolicySchema = options({
  /** The retry policy for these tools, over the server's and the toolkit's. */
  retry: RetryOptionsSchema.optional(),
  /** Per-attempt timeout, in milliseconds. Unset, the server's `timeoutMs` applies, else the toolkit's. */
  timeoutMs: number({ min: 1 }).optional(),
  /** Restart the attempt's timeout whenever the server reports progress. @default false */
  resetTimeoutOnProgress: flag().default(false),
  /** A hard cap on one attempt even with progress; the server is sent a cancellation. */
  maxTotalTimeoutMs: number({ min: 1 }).optional(),
  /**
   * The longest the whole call may take, in milliseconds: every attempt, backoff, queue, gate,
   * reconnect and fallback. At the deadline the call settles at once with the last failure it met
   * (or `request_timeout`), `data.deadline: true`, and each send tells the server the time left in
   * `_meta["langchain-mcp-errors/deadline"]`. A LangChain `signal` or `timeout` and a LangGraph
   * step's timeout end it sooner; nothing lengthens it. Unset, the server's `deadlineMs` applies,
   * else the toolkit's, else it is derived from the policy (see {@link derivedDeadlineMs}: 105000
   * with every default).
   */
  deadlineMs: number({ min: 1, infinite: true }).optional(),
  /**
   * The least time an attempt needs, in milliseconds: one that would start with less of the call's
   * deadline left is not sent, and the call settles at once. @default 100
   */
  minAttemptMs: number().default(100),
  /** A server name, or a function that answers instead. Unset, the server's `fallback` applies. */
  fallback: custom<string | FallbackFunction>("a server name or a function", (v) => typeof v === "string" || typeof v === "function").optional(),
  /** Overrides the tool's annotations: is repeating this tool harmless? */
  idempotent: flag().optional(),
  /**
   * Overrides the tool's annotations: does this tool only read (MCP's `readOnlyHint`)? Unset, a
   * trusted `readOnlyHint: true` says so. A read-only tool is idempotent too, unless `idempotent`
   * says otherwise, and it may `coalesce`.
   */
  readOnly: flag().optional(),
  /**
   * Shared reads: identical calls in flight (the same tool, arguments, and per-call headers and
   * `_meta` from `beforeToolCall`) share one request and one run of the policies. Each caller gets
   * its own copy of the answer and keeps its own signal and timeout; the request is cancelled only
   * when the last caller waiting for it has gone. Nothing is cached. Read-only tools only (a
   * trusted `readOnlyHint: true`, or `readOnly: true`): `connect()` refuses it on any other tool it
   * offers, naming this field, and a tool listed later that may write is never shared.
   * @default false
   */
  coalesce: flag().default(false),
  /**
   * Hedged calls: when an attempt has not answered within `delayMs`, another is sent beside it,
   * up to `maxAttempts`; the first answer wins and the others are cancelled. An attempt that
   * failed unsent and transient (a 503, a refused connect) sends the next at once. Each attempt
   * after the first costs a retry from the server's retry budget, and none starts past the call's
   * deadline. It takes the place of `retry` for these tools, as gRPC's `hedgingPolicy` does.
   * Read-only tools only (a trusted `readOnlyHint: true`, or `readOnly: true`): two writes sent
   * at once race even under one idempotency key, so `connect()` refuses it on any other tool,
   * naming this field. Off unless set.
   */
  hedge: HedgeOptionsSchema.optional(),
  /**
   * Faults injected at the transport for these tools' attempts, over the server's and the
   * toolkit's `chaos` (`false`: none). Faults their server's transport cannot carry are left out.
   */
  chaos: ChaosSettingSchema.optional(),
  /**
   * The input property that carries an idempotency key, or `false` for none. The toolkit removes
   * the property from the schema the model sees, sends a key it made (`crypto.randomUUID()`) once
   * per call, the same on every retry, re-send and fallback, and then repeats the call after an
   * unknown outcome (a 502 after forwarding, a reset mid-call), since a server that honours the key
   * runs it once and answers the repeat with the first result (see `langchain-mcp-errors/server`).
   * Unset (no fixed default, so no `@default` tag), a property named `idempotency_key` or
   * `idempotencyKey` in the tool's input schema is it, and on a server that declares the
   * `langchain-mcp-errors/idempotency` experimental capability every call carries a key in `_meta`.
   * `false`: these tools' calls carry no key, on any server.
   */
  idempotencyKey: custom<string | false>("a property name or false", (v) => v === false || (typeof v === "string" && v.trim() !== "")).optional(),
  /**
   * Run calls as MCP Tasks (2025-11-25): `"auto"` for tools that require it and for tools that
   * allow it when their timeout is a minute or more; `"always"` whenever the tool allows it;
   * `"never"`. In 2026-07-28, on a server declaring the `io.modelcontextprotocol/tasks`
   * extension, any call unless `"never"` (the server decides there). The timeout bounds the whole task.
   * @default "auto"
   */
  task: oneOf(["auto", "always", "never"]).default("auto"),
  /**
   * Remove the configuration's secrets (what a server is sent in its headers, env, arguments and
   * URL, as redaction judges them, and `errors.redact`) from these tools' successful results too:
   * the model's text and the artifact. The built-in shapes (a JWT, an `sk-` key) stay, since a
   * token may be what a tool is asked for. Set it to false only for a tool that must hand one of
   * those secrets back (a server's `get-env` while you debug its configuration).
   * @default true
   */
  redactResults: flag().default(true),
});
export interface ToolPolicy extends z.input<typeof ToolPolicySchema> {}
