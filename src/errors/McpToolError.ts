import { decidedByCaller, type ErrorKind, type Outcome, type Reason, REASONS } from "./reasons.js";

/** The fields of an {@link McpToolError}, as constructed and as serialized by `toJSON()`. */
export interface McpToolErrorFields {
  kind: ErrorKind;
  reason: Reason;
  /** The `shouldRetry` verdict: could the same call succeed later? */
  transient: boolean;
  outcome: Outcome;
  /** The JSON-RPC error code, where there is one. */
  code?: number;
  /** The HTTP status, where there is one. */
  status?: number;
  /** The server's wait hint (Retry-After or `data.retryAfter`), in milliseconds. */
  retryAfterMs?: number;
  /** The name the model called. */
  toolName?: string;
  serverName?: string;
  /** How many attempts were made. @default 1 */
  attempts?: number;
  /** Extra structured detail: the JSON-RPC `data`, a process's exit code and stderr tail. */
  data?: unknown;
}

export interface McpToolErrorOptions extends McpToolErrorFields {
  /** The failure's message, before cleaning and redaction. */
  message: string;
  /** The original error, untouched. */
  cause?: unknown;
}

/** The serialized form, safe to put in a ToolMessage artifact. */
export interface McpToolErrorJSON extends McpToolErrorFields {
  name: "McpToolError";
  message: string;
  attempts: number;
}

/**
 * One normalized, classified failure of an MCP tool call.
 *
 * Branch on `reason`, `kind`, `transient` and `outcome`, never on the message text.
 * The original error is kept untouched in `cause`.
 *
 * A value: once made it never changes. Context added later (the tool's name, the attempt
 * count) makes a new error with {@link McpToolError.with}, so two calls never share one.
 */
export class McpToolError extends Error {
  override readonly name = "McpToolError";
  readonly kind: ErrorKind;
  readonly reason: Reason;
  readonly transient: boolean;
  readonly outcome: Outcome;
  readonly code?: number;
  readonly status?: number;
  readonly retryAfterMs?: number;
  readonly toolName?: string;
  readonly serverName?: string;
  readonly attempts: number;
  readonly data?: unknown;

  constructor(options: McpToolErrorOptions) {
    // Its own stack shows only where we classified the failure. A wrapped cause keeps the stack
    // that matters, and a tool's isError answer has no place in the program to point at, so
    // those skip the capture: it was the costliest step of the error path.
    const ownStack = options.cause === undefined && options.kind !== "domain";
    const limit = Error.stackTraceLimit;
    if (!ownStack) Error.stackTraceLimit = 0;
    try {
      super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    } finally {
      Error.stackTraceLimit = limit;
    }
    if (!ownStack) this.stack = `${this.name}: ${this.message}`;
    this.kind = options.kind;
    this.reason = options.reason;
    this.transient = options.transient;
    this.outcome = options.outcome;
    if (options.code !== undefined) this.code = options.code;
    if (options.status !== undefined) this.status = options.status;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
    if (options.toolName !== undefined) this.toolName = options.toolName;
    if (options.serverName !== undefined) this.serverName = options.serverName;
    this.attempts = options.attempts ?? 1;
    if (options.data !== undefined) this.data = options.data;
  }

  /** Builds an error for `reason` with the table's defaults; `overrides` win where they are defined. */
  static of(reason: Reason, message: string, overrides: Partial<McpToolErrorFields> & { cause?: unknown } = {}): McpToolError {
    return errorFor(reason, message, overrides, undefined);
  }

  /** A copy with some fields changed; the cause is kept unless replaced. */
  with(changes: Partial<McpToolErrorFields> & { message?: string; cause?: unknown }): McpToolError {
    // A copy keeps the stack of the error it copies (where the failure was classified), so it
    // skips capturing its own: on the error path that capture was the costliest step.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    let copy: McpToolError;
    try {
      copy = new McpToolError({ ...this.fields(), message: this.message, cause: this.cause, ...changes });
    } finally {
      Error.stackTraceLimit = limit;
    }
    // Made when read: formatting a captured stack is itself costly, and most are never read.
    const original = this;
    Object.defineProperty(copy, "stack", {
      get(): string {
        const frames = (original.stack ?? "").split("\n").filter((line) => /^\s+at /.test(line));
        return [`${copy.name}: ${copy.message}`, ...frames].join("\n");
      },
      configurable: true,
      enumerable: false,
    });
    return copy;
  }

  private fields(): McpToolErrorFields {
    const out: McpToolErrorFields = {
      kind: this.kind,
      reason: this.reason,
      transient: this.transient,
      outcome: this.outcome,
      attempts: this.attempts,
    };
    if (this.code !== undefined) out.code = this.code;
    if (this.status !== undefined) out.status = this.status;
    if (this.retryAfterMs !== undefined) out.retryAfterMs = this.retryAfterMs;
    if (this.toolName !== undefined) out.toolName = this.toolName;
    if (this.serverName !== undefined) out.serverName = this.serverName;
    if (this.data !== undefined) out.data = this.data;
    return out;
  }

  /**
   * Plain data, without `cause` (which may hold sockets or processes). The message here is
   * raw: use `toModelText` for anything a model or a log outside your process reads.
   */
  toJSON(): McpToolErrorJSON {
    return { name: "McpToolError", message: this.message, ...this.fields(), attempts: this.attempts };
  }
}

export function isMcpToolError(error: unknown): error is McpToolError {
  return error instanceof McpToolError;
}

/**
 * A failure that says the server is unhealthy: transient, and neither the tool's own
 * `isError` answer nor the caller's cancel. It counts against the circuit breaker, and it is
 * what a fallback may answer.
 */
export function isServerFailure(error: unknown): error is McpToolError {
  return error instanceof McpToolError && error.transient && error.kind !== "domain" && !decidedByCaller(error.reason);
}

/**
 * `McpToolError.of`, with a second layer of defaults under `overrides`: what the call's context
 * knows (the tool, the server, the attempt count, the error that was thrown). Field by field,
 * not spread: spreading objects of many shapes, then dropping their undefined keys, made this
 * the costliest step of classifying a failure. An undefined override falls back past it.
 */
export function errorFor(
  reason: Reason,
  message: string,
  overrides: Partial<McpToolErrorFields> & { cause?: unknown },
  base: { toolName?: string | undefined; serverName?: string | undefined; attempts?: number | undefined; cause?: unknown } | undefined,
): McpToolError {
  const info = REASONS[reason];
  return new McpToolError({
    reason,
    message,
    kind: overrides.kind ?? info.kind,
    transient: overrides.transient ?? info.transient,
    outcome: overrides.outcome ?? info.outcome,
    code: overrides.code,
    status: overrides.status,
    retryAfterMs: overrides.retryAfterMs,
    toolName: overrides.toolName ?? base?.toolName,
    serverName: overrides.serverName ?? base?.serverName,
    attempts: overrides.attempts ?? base?.attempts,
    data: overrides.data,
    cause: overrides.cause !== undefined ? overrides.cause : base?.cause,
  });
}
