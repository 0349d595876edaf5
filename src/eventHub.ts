/** Where a toolkit's events go: one hub per toolkit (or wrapped tool), every event through its redaction. */
import type { McpEvent, McpEventListener, McpEventOf, McpEventType } from "./events.js";

/**
 * Delivers events to listeners, each of which may subscribe to one type or to all.
 * A throwing listener never turns a tool call into a crash.
 */
export class EventHub {
  private readonly all = new Set<McpEventListener>();
  private readonly byType = new Map<McpEventType, Set<McpEventListener>>();

  /**
   * @param listener receives every event.
   * @param redaction makes the copy of an event that listeners see: its error, text and data with
   *   the secrets removed (the toolkit's `Redactor`, errors/redactor.ts).
   */
  constructor(
    listener?: McpEventListener,
    private readonly redaction?: { event(event: McpEvent): McpEvent },
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
    if (this.all.size === 0 && (typed === undefined || typed.size === 0)) return;
    const event = this.redaction ? this.redaction.event(raw) : raw;
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

function call(listener: McpEventListener, event: McpEvent): void {
  try {
    listener(event);
  } catch {
    // A broken listener must not turn a tool call into a crash.
  }
}
