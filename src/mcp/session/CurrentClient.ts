/**
 * The client a Connection holds now, and its generation: how one is opened and adopted, let go
 * or retired, and how the last one ended; and the state every question about "now" reads (is it
 * live, did a call's connection close since the call began, which session, which era). Kept apart
 * from the Connection, which decides when to connect, back off, drain or close: those decisions
 * change this state only through `establish`, `down`, `retire` and `release`, so the client, its
 * generation and its liveness cannot drift apart.
 */
import type { Transport } from "@modelcontextprotocol/client";
import type { ExitInfo } from "../../errors/normalize.js";
import { eraOf, protocolVersionOf, type AnyClient, type ProtocolEra } from "./clients.js";
import type { ClientSource, Opened } from "./clientSource.js";
import type { ConnectAttempt } from "./connect.js";
import { ToolkitClosedError } from "./connectionEnds.js";
import { IDEMPOTENCY_CAPABILITY } from "../../errors/idempotency.js";
import type { ToolCatalog } from "./ToolCatalog.js";
import type { StderrTail } from "../transport/transports.js";
import type { ClientRequests } from "../call/ClientRequests.js";

/** A live client and the generation it belongs to; a call keeps both to tell what happened during it. */
export interface Lease {
  client: AnyClient;
  generation: number;
  /** Did the connection hold a session id when the call started? */
  hadSession: boolean;
  /** The requests of this client: a call's request is tracked here, and nowhere else. */
  requests: ClientRequests;
}

export class CurrentClient {
  /** The adopted client, while there is one. */
  private opened: Opened | undefined;
  private adopted = 0;
  private live = false;
  /** The generation last retired without a close, its calls left to end on their own (see `retire`). */
  private retiredByAnswer = -1;
  /** How the last client ended, for error messages. */
  lastExit: ExitInfo | undefined;
  /**
   * Has the server declared that it honours idempotency keys (`langchain-mcp-errors/idempotency`)?
   * What it declared last, kept while it is down or being reconnected (as its tools are): a call
   * decides its key from it at its start. Undefined until a client was first adopted.
   */
  declaresKeys: boolean | undefined;

  constructor(
    private readonly name: string,
    private readonly source: ClientSource,
    private readonly catalog: ToolCatalog,
    private readonly stderr: StderrTail,
    /** Aborts once the toolkit closes: a client opened after that is let go at once. */
    private readonly closing: AbortSignal,
  ) {}

  /** How many clients were adopted: 0 before the first connect, and the generation of the newest. */
  get generation(): number {
    return this.adopted;
  }

  /** The adopted client's transport, while there is one. */
  get transport(): Transport | undefined {
    return this.opened?.transport;
  }

  get sessionId(): string | undefined {
    return (this.opened?.transport as { sessionId?: string } | undefined)?.sessionId;
  }

  /** Is the current client usable? */
  isLive(): boolean {
    return this.live && this.opened !== undefined && this.source.isLive(this.opened);
  }

  /** Is the lease's client the one held now, and not yet marked down? Only then may a failure of it retire it. */
  holds(lease: Lease): boolean {
    return lease.generation === this.adopted && this.live;
  }

  /**
   * Did the connection a lease came from close (or get replaced) since the lease was taken? Not
   * when it was retired because the server answered (an expired session): its transport stayed
   * open, and each call on it has its own answer.
   */
  closedSince(lease: Lease): boolean {
    if (lease.generation === this.retiredByAnswer) return false;
    return lease.generation !== this.adopted || !this.isLive();
  }

  /** The protocol version of the live client, if there is one. */
  get protocolVersion(): string | undefined {
    return this.isLive() ? protocolVersionOf(this.opened!.client) : undefined;
  }

  /** The protocol era of the live client, if there is one. */
  get era(): ProtocolEra | undefined {
    return this.isLive() ? eraOf(this.opened!.client) : undefined;
  }

  /** The live client as a lease, if there is one. */
  lease(): Lease | undefined {
    return this.isLive() ? this.held(this.opened!) : undefined;
  }

  private held(opened: Opened): Lease {
    return { client: opened.client, generation: this.adopted, hadSession: this.sessionId !== undefined, requests: opened.requests };
  }

  /** Lets go of the old client, opens a new one and makes it the current one, in a new generation. */
  async establish(attempt: ConnectAttempt): Promise<Lease> {
    await this.release(false);
    const opened = await this.source.open(attempt);
    if (this.closing.aborted) {
      await this.source.release(opened, true);
      throw new ToolkitClosedError(this.name);
    }
    const generation = ++this.adopted;
    this.opened = opened;
    const experimental = opened.client.getServerCapabilities()?.experimental as Record<string, unknown> | undefined;
    this.declaresKeys = experimental?.[IDEMPOTENCY_CAPABILITY] !== undefined;
    this.catalog.connected(opened);
    this.live = true;
    this.source.adopt(opened, generation, () => generation === this.adopted, { onClose: (transportError) => this.ended(opened.requests, transportError) });
    return this.held(opened);
  }

  /** The adopted client closed: record how, for the errors of the calls it took down. */
  private ended(requests: ClientRequests, transportError: string | undefined): void {
    this.live = false;
    const exit: ExitInfo = { ...(requests.exit ?? (this.stderr.text() ? { stderrTail: this.stderr.text() } : {})) };
    if (transportError) exit.transportError = transportError;
    this.lastExit = Object.keys(exit).length > 0 ? exit : undefined;
  }

  /** The current client can no longer be used; the next call connects again. */
  down(): void {
    this.live = false;
  }

  /**
   * Lets go of the lease's client without closing it: the calls still in flight on it end on
   * their own, and `closedSince` does not count it closed. Returns it, for the caller to release
   * once they have.
   */
  retire(lease: Lease): Opened | undefined {
    const retiring = this.opened;
    this.retiredByAnswer = lease.generation;
    this.catalog.stop();
    this.opened = undefined;
    return retiring;
  }

  /** Lets go of the current client and closes it (`terminate`: ends its session too). */
  async release(terminate: boolean): Promise<void> {
    this.catalog.stop();
    const opened = this.opened;
    this.opened = undefined;
    if (opened) await this.source.release(opened, terminate);
  }
}
