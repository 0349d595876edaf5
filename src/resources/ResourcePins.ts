/**
 * Resources the application pins into the model's context, kept current: each read through
 * `toolkit.resources.read` (the pipeline, its retries, the redaction of configured secrets), read
 * again when its server says it changed (`notifications/resources/updated`) or that its list
 * changed, and after a lost subscription is restored (resourceWatch.ts). `text()` is what the
 * model reads, within a token budget (pinnedText.ts); the agent middleware (pinMiddleware.ts)
 * puts it into the system prompt of every model call.
 */
import { McpConfigError } from "../config/validate.js";
import { isMcpToolError, McpToolError } from "../errors/McpToolError.js";
import { normalize } from "../errors/normalize.js";
import type { McpResources } from "./McpResources.js";
import { MIN_PINNED_TOKENS, pinnedText, type PinBlock } from "./pinnedText.js";
import { ResourceWatch, type WatchState } from "./resourceWatch.js";
import { expandTemplate, type TemplateVariables } from "./uriTemplates.js";

/** A resource to pin: by its URI, or by a template (RFC 6570) and the values of its variables. */
export type PinnedResource = { server: string; uri: string } | { server: string; uriTemplate: string; variables: TemplateVariables };

export interface ResourcePinsOptions {
  /** The resources pinned, in the order the model reads them. */
  resources: PinnedResource[];
  /**
   * The budget of the whole pinned section, in estimated tokens (characters ÷ 4, rounded up), at
   * least 100. A resource that does not fit is cut, with a note; those past the budget are counted.
   * @default 2000
   */
  maxTokens?: number;
  /** How long a 2026-07-28 `subscriptions/listen` waits for the server's acknowledgement, in milliseconds. @default 5000 */
  listenTimeoutMs?: number;
  /** How long a model call waits for reads under way (a change just heard) before it takes the text as it stands, in milliseconds. @default 2000 */
  maxWaitMs?: number;
}

/** One pinned resource's state, for the application. */
export interface PinStatus {
  server: string;
  uri: string;
  /**
   * `fresh`: the last read succeeded. `stale`: the last read failed with a transient error, and
   * the text shown is an earlier read's. `missing`: no text is shown (a permanent failure, such as
   * `resource_not_found`, or no read succeeded yet). `unread`: not read yet.
   */
  state: "fresh" | "stale" | "missing" | "unread";
  /** When the text shown was read (milliseconds since the epoch). */
  readAt?: number;
  /** The last read's failure, redacted. */
  error?: McpToolError;
  /** Its server's watch: see {@link WatchState}. */
  watch: WatchState;
  /** The watch's last `subscription_lost` (or why it hears no changes), redacted. */
  watchError?: McpToolError;
}

/** The defaults of {@link ResourcePinsOptions}. */
export const DEFAULT_PIN_OPTIONS = { maxTokens: 2000, listenTimeoutMs: 5000, maxWaitMs: 2000 } as const;

interface Pin {
  server: string;
  uri: string;
  text?: string;
  mimeType?: string;
  readAt?: number;
  error?: McpToolError;
  reading?: Promise<void>;
  /** A change was heard while a read was under way: read once more after it. */
  again: boolean;
}

export class ResourcePins {
  private readonly pins: Pin[];
  private readonly options: Required<Omit<ResourcePinsOptions, "resources">>;
  private readonly watches = new Map<string, ResourceWatch>();
  private readonly reads = new Set<Promise<void>>();
  private started: Promise<void> | undefined;
  private readonly closing = new AbortController();

  /** @throws McpConfigError for a server the toolkit does not have, a template that cannot be filled, or a budget under 100 tokens. */
  constructor(
    private readonly toolkit: { readonly resources: McpResources },
    options: ResourcePinsOptions,
  ) {
    const servers = toolkit.resources.requests.servers;
    this.options = { ...DEFAULT_PIN_OPTIONS, ...definedOf(options) };
    if (!(this.options.maxTokens >= MIN_PINNED_TOKENS)) throw new McpConfigError("maxTokens", `must be at least ${MIN_PINNED_TOKENS} (got ${this.options.maxTokens})`);
    this.pins = options.resources.map((pinned, i) => {
      if (!servers.includes(pinned.server)) throw new McpConfigError(`resources[${i}].server`, `no server named '${pinned.server}' (servers: ${servers.join(", ")})`);
      let uri: string;
      try {
        uri = "uri" in pinned ? pinned.uri : expandTemplate(pinned.uriTemplate, pinned.variables, "resources/read");
      } catch (error) {
        throw new McpConfigError(`resources[${i}].uriTemplate`, error instanceof Error ? error.message : String(error));
      }
      return { server: pinned.server, uri, again: false };
    });
  }

  /** Reads every pinned resource and starts watching their servers; once, whatever the number of calls. Never rejects: each failure is in `status()`. */
  start(): Promise<void> {
    return (this.started ??= this.begin());
  }

  /** The pinned section as the model reads it, within the budget; "" when nothing is pinned. */
  text(): string {
    return pinnedText(this.pins.map(blockOf), this.options.maxTokens);
  }

  /** Each pinned resource's state, in the order pinned. */
  status(): PinStatus[] {
    return this.pins.map((pin) => {
      const watch = this.watches.get(pin.server);
      const state = pin.text !== undefined ? (pin.error ? "stale" : "fresh") : pin.error || pin.readAt ? "missing" : "unread";
      return {
        server: pin.server,
        uri: pin.uri,
        state,
        ...(pin.readAt !== undefined ? { readAt: pin.readAt } : {}),
        ...(pin.error ? { error: pin.error } : {}),
        watch: watch?.state ?? (this.closing.signal.aborted ? "stopped" : "starting"),
        ...(watch?.lastError ? { watchError: watch.lastError } : {}),
      };
    });
  }

  /** Reads every pinned resource again now. */
  async refresh(): Promise<void> {
    await Promise.all(this.pins.map((pin) => this.read(pin)));
  }

  /** Resolves once the reads under way have settled (those a change just started), or after `ms`. */
  async settled(ms = this.options.maxWaitMs): Promise<void> {
    if (this.reads.size === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    await Promise.race([Promise.allSettled([...this.reads]), waited]);
    clearTimeout(timer);
  }

  /** Stops watching and reading; the toolkit's own `close()` stops it too. */
  close(): void {
    this.closing.abort();
    for (const watch of this.watches.values()) watch.stop();
  }

  private async begin(): Promise<void> {
    const resources = this.toolkit.resources;
    const servers = [...new Set(this.pins.map((p) => p.server))];
    await Promise.all(
      servers.map((server) => {
        const { connection, events, redact } = resources.watchParts(server);
        const of = (uri?: string) => this.pins.filter((p) => p.server === server && (uri === undefined || p.uri === uri));
        if (!connection || this.closing.signal.aborted) return Promise.all(of().map((pin) => this.read(pin)));
        const uris = [...new Set(of().map((p) => p.uri))];
        const watch = new ResourceWatch(
          server,
          uris,
          { connection, events, requests: resources.requests, redact },
          { updated: (uri) => void Promise.all(of(uri).map((pin) => this.read(pin))), refresh: () => Promise.all(of().map((pin) => this.read(pin))).then(() => undefined) },
          this.options.listenTimeoutMs,
        );
        this.watches.set(server, watch);
        return watch.start();
      }),
    );
  }

  /** Reads a pin, or, while a read of it is under way, once more after that one (a change may have come after it began). */
  private read(pin: Pin): Promise<void> {
    if (pin.reading) {
      pin.again = true;
      return pin.reading;
    }
    const reading = this.readLoop(pin).finally(() => {
      pin.reading = undefined;
      this.reads.delete(reading);
    });
    pin.reading = reading;
    this.reads.add(reading);
    return reading;
  }

  private async readLoop(pin: Pin): Promise<void> {
    const resources = this.toolkit.resources;
    do {
      pin.again = false;
      try {
        // Fresh: a cached answer (a server's ttlMs) is what a change notification says is stale.
        const docs = await resources.read(pin.server, pin.uri, { fresh: true, signal: this.closing.signal });
        if (this.closing.signal.aborted) return;
        pin.text = docs.map((d) => d.pageContent).join("\n\n");
        pin.mimeType = typeof docs[0]?.metadata.mimeType === "string" ? docs[0].metadata.mimeType : undefined;
        pin.readAt = Date.now();
        pin.error = undefined;
      } catch (thrown) {
        if (this.closing.signal.aborted) return;
        // What `read` throws is redacted already.
        const error = isMcpToolError(thrown) ? thrown : resources.watchParts(pin.server).redact(normalize(thrown, { serverName: pin.server, toolName: "resources/read" }));
        pin.error = error;
        // A resource that is gone (or any other permanent failure) shows no old text as if it stood.
        if (!error.transient) pin.text = undefined;
      }
    } while (pin.again && !this.closing.signal.aborted);
  }
}

/** What the model reads of a pin: its text, and a note when it is stale or missing. */
function blockOf(pin: Pin): PinBlock {
  const base = { server: pin.server, uri: pin.uri, ...(pin.mimeType ? { mimeType: pin.mimeType } : {}) };
  if (pin.text !== undefined) {
    if (!pin.error) return { ...base, text: pin.text };
    return { ...base, text: pin.text, note: `could not be read again (${pin.error.reason}); this is the text read at ${new Date(pin.readAt!).toISOString()}` };
  }
  if (pin.error) return { ...base, note: `not available (${pin.error.reason}): ${oneLine(pin.error.message)}` };
  return { ...base, note: "not read yet" };
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

function definedOf(options: ResourcePinsOptions): Partial<Omit<ResourcePinsOptions, "resources">> {
  const { resources: _pinned, ...rest } = options;
  return Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
}
