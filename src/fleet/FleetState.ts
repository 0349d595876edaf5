import { randomUUID } from "node:crypto";
import { DEFAULT_BREAKER, defaultsOf, type BreakerOptions, type McpToolkitConfig, type ServerConfig } from "../config/index.js";
import { SharedStateOptionsSchema, type SharedStateOptions } from "../config/schema.js";
import type { McpEvent } from "../events.js";
import { CatalogStore } from "./catalogStore.js";
import type { Throttle } from "../policy/Throttle.js";
import { serverKeys, throttleKey } from "./keys.js";
import { scriptRunner } from "./redis.js";
import { SharedServer } from "./SharedServer.js";
import { SharedThrottle } from "./SharedThrottle.js";
import { Store } from "./Store.js";
import type { RecoveryPing } from "../policy/recoveryPing.js";

const DEFAULT_SHARED_STATE = defaultsOf(SharedStateOptionsSchema);

/**
 * One toolkit's part in the fleet: the Redis it shares, the shared state of each of its servers,
 * their tool catalogs, and the one background timer that refreshes the state. Loaded only when
 * `sharedState` is set.
 */
export class FleetState {
  private readonly options: typeof DEFAULT_SHARED_STATE & SharedStateOptions;
  private readonly store: Store;
  private readonly servers: SharedServer[] = [];
  private readonly throttles: SharedThrottle[] = [];
  private readonly timer: NodeJS.Timeout;
  /** Each server's tool catalog, kept with its ttl. */
  readonly catalogs: CatalogStore;
  /** This process in the evidence hashes: random, so two processes never share a name. */
  readonly member = randomUUID().slice(0, 12);

  constructor(options: SharedStateOptions, emit: (event: McpEvent) => void) {
    this.options = { ...DEFAULT_SHARED_STATE, ...options };
    this.store = new Store(scriptRunner(options.redis), this.options.commandTimeoutMs, emit);
    this.catalogs = new CatalogStore(this.store, this.options.keyPrefix);
    this.timer = setInterval(() => {
      for (const server of this.servers) void server.refresh();
      for (const throttle of this.throttles) void throttle.refresh();
    }, this.options.refreshMs);
    // The timer must not keep a process alive that is otherwise done.
    this.timer.unref();
  }

  /** The shared state of one server, for its breaker and its Retry-After gate. */
  server(name: string, config: ServerConfig, breaker: BreakerOptions, listening?: (ms: number) => Promise<boolean>, recovery?: RecoveryPing): SharedServer {
    const { failureThreshold, initialHalfOpenAfterMs, halfOpenAfterMs, halfOpenJitter, failureRate, slowCallRate, minimumCalls, window } = { ...DEFAULT_BREAKER, ...breaker };
    const rated = failureRate !== undefined || slowCallRate !== undefined;
    const { refreshMs, commandTimeoutMs, minProcesses, leaseDeadlineMs, keyPrefix } = this.options;
    const server = new SharedServer(this.store, serverKeys(keyPrefix, name, config), {
      member: this.member,
      failureThreshold,
      initialHalfOpenAfterMs,
      halfOpenAfterMs,
      halfOpenJitter,
      minProcesses,
      leaseDeadlineMs,
      // Two refreshes missed, and the one in flight out of time: the snapshot is no longer the fleet's.
      staleAfterMs: 2 * refreshMs + commandTimeoutMs,
      ...(listening ? { listening } : {}),
      // The process breaker's pings (one loop per server), which the fleet's circuit starts too.
      ...(recovery ? { recovery } : {}),
      ...(rated ? { rates: { failureRate, slowCallRate, minimumCalls, window } } : {}),
    });
    this.servers.push(server);
    void server.refresh();
    return server;
  }

  /** The fleet's cuts of one server's send rate, for its throttle. */
  throttle(name: string, config: ServerConfig, throttle: Throttle): SharedThrottle {
    const shared = new SharedThrottle(this.store, throttleKey(this.options.keyPrefix, name, config), this.member, throttle);
    this.throttles.push(shared);
    void shared.refresh();
    return shared;
  }

  /** Stops the background refresh; the Redis client is the application's, and stays open. */
  close(): void {
    clearInterval(this.timer);
    for (const server of this.servers) server.close();
  }
}

/** What each server's guards take from the fleet. */
interface SharedGuards {
  breaker: { useShared(shared: SharedServer): void; recovery?: RecoveryPing };
  gate: { useShared(shared: SharedServer): void };
  throttle?: Throttle;
  /** The connection's ListenWatch: a fleet's refused server is tested as soon as it listens. */
  listening?: (ms: number) => Promise<boolean>;
}

/**
 * Joins a toolkit's servers to the fleet's shared state: each HTTP server's breaker and
 * Retry-After gate consult it, and its throttle (when it has one) shares its cuts. Stdio
 * servers stay local: each process runs its own, and one's crash says nothing about another's.
 */
export function joinFleet(
  options: SharedStateOptions,
  config: Pick<McpToolkitConfig, "servers" | "breaker">,
  guards: ReadonlyMap<string, SharedGuards>,
  emit: (event: McpEvent) => void,
): FleetState {
  const fleet = new FleetState(options, emit);
  for (const [name, server] of Object.entries(config.servers)) {
    if ("transport" in server && server.transport === "stdio") continue;
    const guard = guards.get(name);
    const shared = fleet.server(name, server, { ...config.breaker, ...server.breaker }, guard?.listening, guard?.breaker.recovery);
    guard?.breaker.useShared(shared);
    guard?.gate.useShared(shared);
    if (guard?.throttle) guard.throttle.useShared(fleet.throttle(name, server, guard.throttle));
  }
  return fleet;
}
