/**
 * 8. Cold start from a catalog: `McpToolkit.connect` to 5 HTTP servers of 50 tools each, cold
 * (each server probed, listed and its list stream opened) and from `toolkit.catalog()` (no
 * request; each server connects at its first call, without listing), side by side in
 * interleaved rounds; with the servers on loopback, and with a 25 ms wait on every request,
 * as a network's round trip adds. Also runs alone: `npx tsx bench/catalog.ts [--quick]`.
 */
import type { ServerConfig, ToolkitCatalog } from "../../src/index.js";
import { startCatalogServer, type CatalogServer } from "../../test/servers/v2/catalog.js";
import type { BenchContext } from "../context.js";
import { fmt, type Ratio, type SectionResult } from "../model.js";
import type { Ours } from "../ours.js";
import { collect, median, pairedRatio, quantile } from "../stats.js";

const SERVERS = 5;
const TOOLS_PER_SERVER = 50;
const ROUND_TRIP_MS = 25;

/** One trial's figures, in ms, and the requests the servers received during it. */
interface Trial {
  connect: number;
  /** From connect()'s return until one call to each server (in parallel) answered. */
  firstCalls: number;
  requestsAtConnect: number;
  listsInTrial: number;
}

type Mode = "cold" | "catalog";

async function trial(ours: Ours, servers: CatalogServer[], config: Record<string, ServerConfig>, catalog: ToolkitCatalog | undefined): Promise<Trial> {
  for (const s of servers) s.methods.clear();
  const requests = () => servers.reduce((n, s) => n + [...s.methods.values()].reduce((a, b) => a + b, 0), 0);
  const t0 = performance.now();
  const toolkit = await ours.McpToolkit.connect({ servers: config, ...(catalog ? { catalog } : {}) });
  const t1 = performance.now();
  const requestsAtConnect = requests();
  try {
    const tools = toolkit.getTools();
    if (tools.length !== SERVERS * TOOLS_PER_SERVER) throw new Error(`expected ${SERVERS * TOOLS_PER_SERVER} tools, got ${tools.length}`);
    const replies = await Promise.all(Object.keys(config).map((name) => toolkit.getTool(`${name}_echo`)!.invoke({ text: "hi" })));
    const t2 = performance.now();
    for (const reply of replies) if (!String(reply).includes(": hi")) throw new Error(`a call failed: ${String(reply).slice(0, 200)}`);
    return { connect: t1 - t0, firstCalls: t2 - t1, requestsAtConnect, listsInTrial: servers.reduce((n, s) => n + s.count("tools/list"), 0) };
  } finally {
    await toolkit.close();
  }
}

/** Both modes against one set of servers, interleaved: rounds × (cold, catalog), the order swapped every round. */
async function compare(ours: Ours, servers: CatalogServer[], rounds: number, warmup: number): Promise<Record<Mode, Trial[]>> {
  const config = Object.fromEntries(servers.map((s, i) => [`s${i + 1}`, { transport: "http", url: s.url.href } as ServerConfig]));
  // The catalog a deploy step would write: a cold toolkit's, through JSON.
  const first = await ours.McpToolkit.connect({ servers: config });
  const catalog = JSON.parse(JSON.stringify(first.catalog())) as ToolkitCatalog;
  await first.close();
  const out: Record<Mode, Trial[]> = { cold: [], catalog: [] };
  for (let round = 0; round < warmup + rounds; round++) {
    collect(1);
    const order: Mode[] = round % 2 === 0 ? ["cold", "catalog"] : ["catalog", "cold"];
    for (const mode of order) {
      const t = await trial(ours, servers, config, mode === "catalog" ? catalog : undefined);
      if (round >= warmup) out[mode].push(t);
    }
  }
  return out;
}

export async function catalogStart({ plan, ours, cleanup }: BenchContext): Promise<SectionResult> {
  const { rounds } = plan.catalog;
  const servers: CatalogServer[] = [];
  for (let i = 1; i <= SERVERS; i++) servers.push(await startCatalogServer({ tools: TOOLS_PER_SERVER - 1, ttlMs: 3_600_000, prefix: `s${i}_` }));
  cleanup(async () => void (await Promise.allSettled(servers.map((s) => s.close()))));

  const settings: [string, number][] = [
    ["loopback", 0],
    [`+${ROUND_TRIP_MS} ms per request`, ROUND_TRIP_MS],
  ];
  const rows: string[][] = [];
  const pairRows: string[][] = [];
  const ratios: Ratio[] = [];
  for (const [label, delayMs] of settings) {
    for (const s of servers) s.delayMs = delayMs;
    const r = await compare(ours, servers, rounds, plan.warmupRounds);
    const p50 = (xs: number[]) => quantile(xs, 0.5);
    const p90 = (xs: number[]) => quantile(xs, 0.9);
    for (const mode of ["cold", "catalog"] as const) {
      const t = r[mode];
      const total = t.map((x) => x.connect + x.firstCalls);
      rows.push([label, mode, fmt(p50(t.map((x) => x.connect)), 1), fmt(p90(t.map((x) => x.connect)), 1), fmt(p50(t.map((x) => x.firstCalls)), 1), fmt(p50(total), 1), fmt(median(t.map((x) => x.requestsAtConnect)), 0), fmt(median(t.map((x) => x.listsInTrial)), 0)]);
    }
    const connectRatio = pairedRatio(r.catalog.map((x) => x.connect), r.cold.map((x) => x.connect));
    const totalRatio = pairedRatio(r.catalog.map((x) => x.connect + x.firstCalls), r.cold.map((x) => x.connect + x.firstCalls));
    pairRows.push([label, fmt(connectRatio, 3), fmt(totalRatio, 2)]);
    ratios.push({ label: `connect 5×50 tools (${label}): catalog/cold`, value: connectRatio }, { label: `connect + first calls (${label}): catalog/cold`, value: totalRatio });
  }

  return {
    title: "8. Cold start from a catalog",
    method:
      `${SERVERS} v2 servers over streamable HTTP on 127.0.0.1 (\`test/servers/v2/catalog.ts\`, in this process), ${TOOLS_PER_SERVER} tools each, their \`tools/list\` results carrying \`ttlMs\` 3,600,000. ` +
      `Per setting, ${rounds} rounds after ${plan.warmupRounds} dropped; each round runs both subjects once, the order swapped every round, a full GC first. ` +
      "A trial: `McpToolkit.connect({ servers })` timed until it resolves (cold: each server's `server/discover`, `tools/list` and `subscriptions/listen`; from a catalog: `McpToolkit.connect({ servers, catalog })`, the catalog a cold toolkit's `catalog()` through JSON), then one call to each server in parallel timed until all answered (from a catalog these calls connect their servers, from the entry's discover result, without listing), then `close()`. " +
      `The second setting delays every request (POST, OPTIONS, GET) ${ROUND_TRIP_MS} ms at the server before it is handled, as a round trip to a remote server adds. Ratios: catalog over cold within each round, then the median over rounds.`,
    tables: [
      { headers: ["setting", "start", "connect p50 ms", "connect p90 ms", "first calls p50 ms", "connect + first calls p50 ms", "requests during connect", "tools/list per trial"], rows },
      { headers: ["setting", "connect: catalog/cold (paired)", "connect + first calls: catalog/cold (paired)"], rows: pairRows },
    ],
    ratios,
    goals: [],
    notes: [
      "From a catalog `connect()` sends nothing: the tools are built from the catalog and the model can be given them at once; each server is contacted by its first call, which connects (2026-07-28: no request of its own, the entry's `server/discover` result is adopted; the `subscriptions/listen` stream for list changes opens beside the call, not before it) and sends the call.",
      "The first call from a catalog also sends the keep-alive check's `OPTIONS` (`keepAliveCheckAfterMs`): the connection has seen no response yet, so the pooled sockets count as idle. Cold, the discover and list responses came just before, and the first call goes without it.",
    ],
  };
}
