/** Where a toolkit's events go: one hub per toolkit (or wrapped tool), every event through its redaction. */
import type { Redactor } from "./errors/redactor.js";
import type { McpEvent, McpEventListener, McpEventOf, McpEventType, WarningEvent } from "./events.js";

/** What the hub asks of the toolkit's `Redactor` for the copy of an event that listeners see. */
export type EventRedaction = Pick<Redactor, "error" | "text" | "value">;

/**
 * Which events may carry an error, a server's words or data. Every type of the union must be
 * named (the compiler checks it), so a new event is decided on here, not forgotten.
 */
const CARRIES_TEXT: Readonly<Record<McpEventType, boolean>> = {
  call: false,
  hedge: false,
  success: false,
  reconnect: false,
  tools_changed: false,
  half_open: false,
  circuit_close: false,
  retry: true,
  fallback: true,
  error: true,
  circuit_open: true,
  log: true,
  progress: true,
  task: true,
  shared_state: true,
  server_status: true,
  warning: true,
};

/**
 * Delivers events to listeners, each of which may subscribe to one type or to all.
 * A throwing listener never turns a tool call into a crash.
 */
export class EventHub {
  private readonly all = new Set<McpEventListener>();
  private readonly byType = new Map<McpEventType, Set<McpEventListener>>();

  /**
   * @param listener receives every event.
   * @param redaction removes the secrets from the copy of an event that listeners see: its error,
   *   text and data (the toolkit's `Redactor`, errors/redactor.ts).
   * @param unheard receives, redacted, a `warning` nobody listens for: a warning is for a person,
   *   and one that no listener hears is printed (langchain/warnings.ts).
   */
  constructor(
    listener?: McpEventListener,
    private readonly redaction?: EventRedaction,
    private readonly unheard?: (event: WarningEvent) => void,
  ) {
    if (listener) this.all.add(listener);
  }

  /** Subscribes to one type of event; returns the function that unsubscribes. */
  on<T extends McpEventType>(type: T, listener: (event: McpEventOf<T>) => void): () => void;
  /** Subscribes to every event; returns the function that unsubscribes. */
  on(type: "*", listener: McpEventListener): () => void;
  on(type: McpEventType | "*", listener: (event: never) => void): () => void {
    const fn = listener as McpEventListener;
    const set = type === "*" ? this.all : this.typeSet(type);
    set.add(fn);
    return () => {
      set.delete(fn);
    };
  }

  /** Is anyone listening? Lets a caller skip building an event nobody reads. */
  get active(): boolean {
    if (this.all.size > 0) return true;
    for (const set of this.byType.values()) if (set.size > 0) return true;
    return false;
  }

  /** Would an event of this type reach anyone? Lets a caller skip building it. */
  listens(type: McpEventType): boolean {
    return this.all.size > 0 || (this.byType.get(type)?.size ?? 0) > 0;
  }

  emit(raw: McpEvent): void {
    const typed = this.byType.get(raw.type);
    // Redacting an error costs microseconds: only for an event someone receives.
    if (this.all.size === 0 && (typed === undefined || typed.size === 0)) {
      if (raw.type === "warning" && this.unheard) call(this.unheard, (this.redaction ? redacted(raw, this.redaction) : raw) as WarningEvent);
      return;
    }
    const event = this.redaction ? redacted(raw, this.redaction) : raw;
    for (const listener of this.all) call(listener, event);
    if (typed) for (const listener of typed) call(listener, event);
  }

  private typeSet(type: McpEventType): Set<McpEventListener> {
    let set = this.byType.get(type);
    if (!set) {
      set = new Set();
      this.byType.set(type, set);
    }
    return set;
  }
}

/**
 * An event as listeners may see it: its error redacted, and its text and data (a log line's
 * data and logger, a progress or task message, a store's failure detail, a status's last error).
 */
function redacted(raw: McpEvent, redaction: EventRedaction): McpEvent {
  // Most events (call, success, a circuit's change) carry nothing to redact: passed on uncopied.
  if (!CARRIES_TEXT[raw.type]) return raw;
  const out: Record<string, unknown> = { ...raw };
  if ("error" in raw && raw.error) out.error = redaction.error(raw.error);
  if ("data" in raw) out.data = redaction.value(raw.data);
  for (const key of ["message", "logger", "detail"] as const) {
    const text = (raw as Partial<Record<typeof key, unknown>>)[key];
    if (typeof text === "string") out[key] = redaction.text(text);
  }
  if (raw.type === "server_status" && raw.lastError) out.lastError = { ...raw.lastError, message: redaction.text(raw.lastError.message) };
  return out as unknown as McpEvent;
}

function call<E extends McpEvent>(listener: (event: E) => void, event: E): void {
  try {
    listener(event);
  } catch {
    // A broken listener must not turn a tool call into a crash.
  }
}
