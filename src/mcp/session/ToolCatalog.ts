/**
 * The tools one server offers: the list read at the last (re)connect, replaced when the server
 * says its list changed or a call finds it stale, and who is told when it changes. It also
 * keeps how long the list holds (catalogCache.ts): a (re)connect within that time does not
 * list again, and a list from a catalog seeds it before any connect.
 */
import type { Client } from "@modelcontextprotocol/client";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AnyClient } from "./clients.js";
import { readListing, remainingMs, type Listing } from "./catalogCache.js";
import { watchTools } from "./toolWatch.js";

/** A call's options when it needs none of its own: one object, not one per call. */
const NO_OPTIONS: { toolDefinition?: Tool } = Object.freeze({});

export class ToolCatalog {
  /** The tools the server listed at the last (re)connect, or since, when it said its list changed. */
  tools: Tool[] = [];
  /** The listing `tools` came from, with how long it holds; undefined before one (and for a user's client at connect). */
  listing: Listing | undefined;
  /** Told when the server's tool list changed after the connect that listed it. */
  onChanged: (() => void) | undefined;
  /** Told of every listing read from the server (not of one a catalog gave). */
  onListed: ((listing: Listing) => void) | undefined;
  private stopWatching: () => void = () => {};
  /** The last listing read from the server itself (not a catalog's): a reconnect starts from it. */
  lastRead: Listing | undefined;
  /** A catalog's entry, until the first connect takes its era verdict. */
  private seeded: Listing | undefined;
  /** Did the current client take its tools without listing them (a catalog's, or a listing that held)? */
  private unlisted = false;

  /** @param fallbackTtlMs how long a list holds when its result carries no `ttlMs` (the server's `catalogTtlMs`). */
  constructor(readonly fallbackTtlMs = 0) {}

  /** Lists the server's tools on `client`, with how long they hold. */
  read(client: AnyClient): Promise<Listing> {
    return readListing(client, this.fallbackTtlMs);
  }

  /** Starts from a catalog's entry: its tools are the server's until it runs out or the server says otherwise. */
  seed(listing: Listing): void {
    this.tools = listing.tools;
    this.listing = this.seeded = listing;
  }

  /** The listing, while it holds: a connect may take its tools without listing. */
  fresh(): Listing | undefined {
    return this.listing && remainingMs(this.listing) > 0 ? this.listing : undefined;
  }

  /** The catalog entry the toolkit started from, once: its era verdict is for the first connect. */
  takeSeed(): Listing | undefined {
    const seeded = this.seeded;
    this.seeded = undefined;
    return seeded;
  }

  /**
   * Hears `client`'s list changes while `isCurrent()` says it is the connection's client. Ready
   * once the server acknowledged the stream, or after `readyWithinMs` without it. The watch is
   * kept only when `adopt` is called; `drop` stops it.
   */
  watch(client: Client, isCurrent: () => boolean, readyWithinMs: number): { ready: Promise<void>; adopt: () => void; drop: () => void } {
    const watching = watchTools(
      client,
      () => this.read(client),
      (listed) => {
        if (!isCurrent()) return;
        this.took(listed);
        this.onChanged?.();
      },
      readyWithinMs,
    );
    return {
      ready: watching.ready,
      adopt: () => {
        this.stop();
        this.stopWatching = watching.stop;
      },
      drop: watching.stop,
    };
  }

  /** Stops hearing the current client's list changes. */
  stop(): void {
    this.stopWatching();
    this.stopWatching = () => {};
  }

  /** A connect's tools (clientSource.ts's `Opened`): with the listing it read, or `reused` from one that still held. */
  connected(opened: { tools: Tool[]; listed?: Listing; reused?: boolean }): void {
    this.tools = opened.tools;
    this.unlisted = opened.reused === true;
    if (opened.listed) this.took(opened.listed);
  }

  /**
   * The definition of a tool the current client never listed. The v2 client checks a result
   * against the output schema, and mirrors `x-mcp-header` arguments into headers, from the list
   * it read; one that read none is handed the definition with the call instead.
   */
  unlistedDefinition(name: string): Tool | undefined {
    return this.unlisted ? this.tools.find((t) => t.name === name) : undefined;
  }

  /** What a call of `name` passes to the client besides its params: the definition, when the client read no list. */
  callOptionsFor(name: string): { toolDefinition?: Tool } {
    const toolDefinition = this.unlistedDefinition(name);
    return toolDefinition ? { toolDefinition } : NO_OPTIONS;
  }

  /**
   * Lists `client`'s tools once its change stream is up (`ready`), and takes the list while the
   * client is still the connection's. A failure leaves the list as it was.
   */
  relist(client: AnyClient, ready: Promise<void>, isCurrent: () => boolean): Promise<void> {
    return ready.then(() => this.read(client)).then(
      (listing) => {
        if (isCurrent()) this.replace(listing, true);
      },
      () => undefined,
    );
  }

  /** Takes a listing read from the server; `onChanged` hears of it when the names differ and `announce` is set. */
  replace(listing: Listing, announce: boolean): void {
    const before = announce ? namesOf(this.tools) : "";
    this.took(listing);
    if (announce && namesOf(listing.tools) !== before) this.onChanged?.();
  }

  private took(listing: Listing): void {
    this.unlisted = false;
    this.lastRead = listing;
    this.tools = listing.tools;
    this.listing = listing;
    this.onListed?.(listing);
  }
}

function namesOf(tools: Tool[]): string {
  return tools.map((t) => t.name).join("\u0000");
}
