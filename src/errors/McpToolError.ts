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
  /** The original error, untouched. Ignored when `redactedFrom` is given. */
  cause?: unknown;
  /**
   * Makes a redacted copy: this error's message and data are already redacted, and `redactedFrom`
   * is the error they were redacted from. The copy has no `cause`; the original (with its raw
   * message, data and cause) is reachable only through {@link McpToolError.unredacted}.
   */
  redactedFrom?: McpToolError;
}

/** The serialized form, safe to put in a ToolMessage artifact. */
export interface McpToolErrorJSON extends McpToolErrorFields {
  name: "McpToolError";
  message: string;
  attempts: number;
}

/**
 * The brand every `McpToolError` carries, as an own non-enumerable property. `Symbol.for` gives
 * every copy of this library the same key (the ESM and the CommonJS build, two installed
 * versions), so each recognises the others' errors where `instanceof` would see two classes.
 * Its value is the version of the error's shape.
 */
const BRAND: unique symbol = Symbol.for("langchain-mcp-errors.McpToolError");
const SHAPE_VERSION = 1;

/**
 * One normalized, classified failure of an MCP tool call.
 *
 * Branch on `reason`, `kind`, `transient` and `outcome`, never on the message text.
 * The original error is kept untouched in `cause`, except on an error the library hands out
 * (to the model, to event listeners, thrown in `errors.mode: "throw"`, rejected by `connect()`):
 * that one is redacted, has no `cause`, and gives the original only to
 * {@link McpToolError.unredacted}.
 *
 * Recognised by a brand, not by its class: `error instanceof McpToolError` and
 * {@link isMcpToolError} are true for an error from any copy of this library.
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
  /**
   * The error this one was redacted from. A private field: neither enumerable, nor printed by
   * `util.inspect` (not even with `showHidden`), nor serialized, nor cloned.
   */
  readonly #unredacted: McpToolError | undefined;
  /** Does `stack` hold frames (captured here, or an original's)? A copy of one that does not is given its one line at once. */
  #framed: boolean;

  constructor(options: McpToolErrorOptions) {
    const raw = options.redactedFrom;
    const cause = raw === undefined ? options.cause : undefined;
    // Its own stack shows only where we classified the failure. A wrapped cause keeps the stack
    // that matters, and a tool's isError answer has no place in the program to point at, so
    // those skip the capture: it was the costliest step of the error path. A redacted copy
    // shows the frames of its original.
    const ownStack = cause === undefined && raw === undefined && options.kind !== "domain";
    const limit = Error.stackTraceLimit;
    if (!ownStack) Error.stackTraceLimit = 0;
    try {
      super(options.message, cause === undefined ? undefined : { cause });
    } finally {
      Error.stackTraceLimit = limit;
    }
    Object.defineProperty(this, BRAND, { value: SHAPE_VERSION, enumerable: false });
    this.#framed = ownStack;
    if (raw !== undefined) {
      // Another copy of the library (or an older version) may lack the accessor.
      this.#unredacted = typeof raw.unredacted === "function" ? raw.unredacted() : raw;
      this.#framed = stackFrom(this, raw);
    } else if (!ownStack) this.stack = `${this.name}: ${this.message}`;
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

  /**
   * Recognises an `McpToolError` from any copy of this library by its brand (see
   * {@link isMcpToolError}); a subclass keeps the ordinary check.
   */
  static override [Symbol.hasInstance](value: unknown): value is McpToolError {
    if (!isBaseClass(this)) return Function.prototype[Symbol.hasInstance].call(this, value);
    return isMcpToolError(value);
  }

  /**
   * The error as it was before redaction, for debugging: its raw message and data, and its
   * `cause`, the original error. An error the library hands out (to the model, to event
   * listeners, thrown in `errors.mode: "throw"`, rejected by `connect()`) is a redacted copy
   * without `cause`; the original is reachable only here, never enumerated, printed by
   * `util.inspect` or serialized. An error that was never redacted returns itself.
   *
   * What this returns may hold secrets: keep it out of logs and model text.
   */
  unredacted(): McpToolError {
    return this.#unredacted ?? this;
  }

  /**
   * A copy with some fields changed; the cause is kept unless replaced. A redacted error's copy
   * stays redacted: a new message or data changes only what it shows, while context (the tool,
   * the attempts, a new cause) reaches its {@link McpToolError.unredacted} original too.
   */
  with(changes: Partial<McpToolErrorFields> & { message?: string; cause?: unknown }): McpToolError {
    const raw = this.#unredacted;
    if (raw !== undefined) {
      const { message: _message, data: _data, ...context } = changes;
      return made({ ...this.fields(), message: this.message, ...changes, cause: undefined, redactedFrom: raw.with(context) });
    }
    // A copy keeps the stack of the error it copies (where the failure was classified), so it
    // skips capturing its own: on the error path that capture was the costliest step. Its
    // options are built field by field: spreading the fields and the changes cost more than
    // the rest of the copy.
    const options = this.fields() as McpToolErrorOptions;
    options.message = changes.message ?? this.message;
    options.cause = "cause" in changes ? changes.cause : this.cause;
    for (const key of FIELD_KEYS) {
      const value = changes[key];
      if (value !== undefined) (options as unknown as Record<string, unknown>)[key] = value;
    }
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    let copy: McpToolError;
    try {
      copy = made(options);
    } finally {
      Error.stackTraceLimit = limit;
    }
    copy.#framed = stackFrom(copy, this);
    return copy;
  }

  /** Does this error's stack hold frames? Errors of another copy of the library are assumed to. */
  static framed(error: Error): boolean {
    return #framed in error ? (error as McpToolError).#framed : true;
  }

  private fields(): McpToolErrorFields {
    return this.fill({ kind: this.kind, reason: this.reason, transient: this.transient, outcome: this.outcome, attempts: this.attempts });
  }

  /** Adds the fields that may be absent to `out`, in their order. */
  private fill<T extends McpToolErrorFields>(out: T): T {
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
    return this.fill<McpToolErrorJSON>({ name: "McpToolError", message: this.message, kind: this.kind, reason: this.reason, transient: this.transient, outcome: this.outcome, attempts: this.attempts });
  }
}

// The class reaches itself only through these: esbuild compiles a class that names itself in its
// body to `class _McpToolError`, the name util.inspect shows (keepNames costs closures per call).
function isBaseClass(c: unknown): boolean {
  return c === McpToolError;
}
function made(options: McpToolErrorOptions): McpToolError {
  return new McpToolError(options);
}

/**
 * Is this an `McpToolError`, from this copy of the library or any other (its ESM and CommonJS
 * builds, another installed version)? Checks the brand, `Symbol.for("langchain-mcp-errors.McpToolError")`.
 */
export function isMcpToolError(error: unknown): error is McpToolError {
  try {
    return typeof error === "object" && error !== null && Object.prototype.hasOwnProperty.call(error, BRAND);
  } catch {
    return false; // a Proxy whose trap throws is no error of ours
  }
}

/**
 * Gives `copy` the frames of `original` under its own message, made when read: formatting a
 * captured stack is itself costly, and most are never read. Only frames, never the original's
 * header: its message may span lines, and a line of it may look like a frame.
 */
function stackFrom(copy: McpToolError, original: Error): boolean {
  if (!McpToolError.framed(original)) {
    copy.stack = `${copy.name}: ${copy.message}`;
    return false;
  }
  Object.defineProperty(copy, "stack", {
    get(): string {
      const header = 1 + (String(original.message).match(/\n/g)?.length ?? 0);
      const frames = String(original.stack ?? "").split("\n").slice(header).filter((line) => /^\s+at /.test(line));
      return [`${copy.name}: ${copy.message}`, ...frames].join("\n");
    },
    configurable: true,
    enumerable: false,
  });
  return true;
}

/** The fields a change may set, besides the message and the cause. */
const FIELD_KEYS = ["kind", "reason", "transient", "outcome", "code", "status", "retryAfterMs", "toolName", "serverName", "attempts", "data"] as const satisfies readonly (keyof McpToolErrorFields)[];

/**
 * A failure that says the server is unhealthy: transient, and neither the tool's own
 * `isError` answer nor the caller's cancel. It counts against the circuit breaker, and it is
 * what a fallback may answer.
 */
export function isServerFailure(error: unknown): error is McpToolError {
  return isMcpToolError(error) && error.transient && error.kind !== "domain" && !decidedByCaller(error.reason);
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
