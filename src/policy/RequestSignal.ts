/**
 * The signal an attempt hands the SDK's tools/call request: what both SDK lines read of an
 * AbortSignal there (`aborted`, `reason`, `throwIfAborted`, abort listeners), and no more.
 *
 * Why not an AbortSignal: on Node 20 each one is built as an EventTarget whose prototype is
 * then changed before its fields are added, so V8 gives every signal a hidden class of its
 * own: about 10 µs and 0.8 KB each, and every site that reads a signal turns megamorphic.
 * This one is a plain class. AttemptScope is one (a subclass, so an attempt holds one object
 * for both, not two); anything that may hand a signal on (to user code, to `AbortSignal.any`,
 * to fetch) gets the scope's real `signal`.
 */
export class RequestSignal {
  /** The SDK adds one listener per request: it needs no array. */
  private first: Listener | undefined;
  private more: Listener[] | undefined;
  onabort: ((event: AbortEvent) => void) | null = null;

  constructor(
    public aborted: boolean,
    public reason: unknown,
  ) {}

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  addEventListener(type: string, listener: Listener | null | undefined): void {
    // Once aborted, a signal never fires again: a listener added then is never called, as with AbortSignal.
    if (type !== "abort" || !listener || this.aborted || listener === this.first || this.more?.includes(listener)) return;
    if (this.first === undefined) this.first = listener;
    else (this.more ??= []).push(listener);
  }

  removeEventListener(type: string, listener: Listener | null | undefined): void {
    if (type !== "abort" || !listener) return;
    if (listener === this.first) this.first = this.more?.shift();
    else {
      const at = this.more?.indexOf(listener) ?? -1;
      if (at >= 0) this.more!.splice(at, 1);
    }
  }

  /** Aborts with `reason`, calling each listener once, as an AbortSignal's abort event does. */
  fire(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.notify();
  }

  /** Calls each listener once, after `aborted` and `reason` are set (a subclass may abort more in between). */
  protected notify(): void {
    const { first, more } = this;
    this.first = this.more = undefined;
    if (!this.onabort && !first) return;
    const event: AbortEvent = { type: "abort", target: this, currentTarget: this };
    if (this.onabort) call(this.onabort, event);
    if (first) call(first, event);
    if (more) for (const listener of more) call(listener, event);
  }
}

/** What a listener receives: the parts of the abort Event that a reader of the signal uses. */
export interface AbortEvent {
  type: "abort";
  target: RequestSignal;
  currentTarget: RequestSignal;
}

type Listener = ((event: AbortEvent) => void) | { handleEvent(event: AbortEvent): void };

/** A throwing listener does not stop the others; its error is reported as an EventTarget reports it, as uncaught. */
function call(listener: Listener, event: AbortEvent): void {
  try {
    if (typeof listener === "function") listener.call(event.target, event);
    else listener.handleEvent(event);
  } catch (error) {
    queueMicrotask(() => {
      throw error;
    });
  }
}
