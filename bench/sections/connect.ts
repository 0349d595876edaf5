/**
 * 7. Connect time per endpoint and era: `McpToolkit.connect` (then `close()`) against real
 * servers of both SDK lines and both protocol eras, with each era setting that takes another
 * path; and, as the baseline for stdio, the v1 SDK client alone (connect + listTools).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { DEFAULT_HTTP_ERA, DEFAULT_STDIO_ERA } from "../../src/config/index.js";
import type { EraSetting, HttpServerConfig, StdioServerConfig } from "../../src/index.js";
import type { BenchContext } from "../context.js";
import { everythingStdioCommand, startHttpEndpoints, v1StdioCommand, v2StdioCommand, type StdioCommand } from "../endpoints.js";
import { fmt, type Ratio, type SectionResult } from "../model.js";
import type { Ours } from "../ours.js";
import { childrenWithRole, roleEnv } from "../servers.js";
import { collect, quantile, rotate } from "../stats.js";

/** Marks every stdio server a subject starts, so one left running after `close()` is found. */
const ROLE = "bench-connect";

/** A connected client, as one trial leaves it before closing. */
interface Opened {
  era: string;
  tools: number;
  close: () => Promise<void>;
}

interface ConnectSubject {
  endpoint: string;
  /** Which client, in which era setting. */
  how: string;
  open: () => Promise<Opened>;
}

/** What one subject's trials measured, in ms. */
interface Trials {
  connect: number[];
  close: number[];
  eras: Map<string, number>;
  tools: Set<number>;
  failed: number;
  strays: number;
  lastError?: string;
}

function ourSubject(ours: Ours, endpoint: string, server: StdioServerConfig | HttpServerConfig, era?: EraSetting): ConnectSubject {
  const byDefault = server.transport === "stdio" ? DEFAULT_STDIO_ERA : DEFAULT_HTTP_ERA;
  return {
    endpoint,
    how: era === undefined ? `ours, default era ("${byDefault}")` : `ours, era: "${era}"`,
    open: async () => {
      const toolkit = await ours.McpToolkit.connect({ servers: { s: era === undefined ? server : { ...server, era } } });
      return { era: toolkit.protocolEra("s") ?? "not connected", tools: toolkit.getTools().length, close: () => toolkit.close() };
    },
  };
}

/** The v1 SDK client alone, as a 2025-era stdio connect cost before the move to v2. */
function v1RawSubject(endpoint: string, command: StdioCommand): ConnectSubject {
  return {
    endpoint,
    how: "v1 SDK client, raw (baseline)",
    open: async () => {
      // stderr piped and drained, as ours does, so neither side differs in what the child may block on.
      const transport = new StdioClientTransport({ ...command, env: roleEnv(ROLE), stderr: "pipe" });
      transport.stderr?.on("data", () => undefined);
      const client = new Client({ name: "bench", version: "1.0.0" });
      try {
        await client.connect(transport);
        const { tools } = await client.listTools();
        return { era: "legacy", tools: tools.length, close: () => client.close() };
      } catch (error) {
        await client.close().catch(() => undefined);
        throw error;
      }
    },
  };
}

const stdio = (command: StdioCommand): StdioServerConfig => ({ transport: "stdio", ...command, env: roleEnv(ROLE) });
const http = (url: URL): HttpServerConfig => ({ transport: "http", url: url.href });

/** One trial: connect, then close, each timed; a stdio server still running afterwards is killed and counted. */
async function trial(subject: ConnectSubject, into: Trials | undefined): Promise<void> {
  const t0 = performance.now();
  try {
    const opened = await subject.open();
    const t1 = performance.now();
    await opened.close();
    const t2 = performance.now();
    if (opened.tools === 0) throw new Error("It connected but listed no tools.");
    if (into) {
      into.connect.push(t1 - t0);
      into.close.push(t2 - t1);
      into.eras.set(opened.era, (into.eras.get(opened.era) ?? 0) + 1);
      into.tools.add(opened.tools);
    }
  } catch (error) {
    if (into) {
      into.failed++;
      into.lastError = (error instanceof Error ? error.message : String(error)).slice(0, 300);
    }
  }
  for (const pid of childrenWithRole(ROLE)) {
    process.kill(pid, "SIGKILL");
    if (into) into.strays++;
  }
}

const p50 = (ms: readonly number[]) => quantile(ms, 0.5);
const p90 = (ms: readonly number[]) => quantile(ms, 0.9);
const erasText = (eras: Map<string, number>) => (eras.size <= 1 ? ([...eras.keys()][0] ?? "—") : [...eras].map(([era, n]) => `${era} ×${n}`).join(", "));

export async function connectTimes({ plan, ours, cleanup }: BenchContext): Promise<SectionResult> {
  const { trials } = plan.connect;
  const urls = await startHttpEndpoints();
  cleanup(urls.close);

  const endpoint = {
    modernOnly: "v2 modern-only, HTTP",
    both: "v2 both eras, HTTP",
    legacySession: "v2 sessionful 2025, HTTP",
    v1Http: "v1 fixture, HTTP",
    everythingHttp: "server-everything, HTTP",
    v2Stdio: "v2 fixture, stdio",
    everythingStdio: "server-everything, stdio",
    v1Stdio: "v1 fixture, stdio",
  };
  const s = {
    modernOnly: ourSubject(ours, endpoint.modernOnly, http(urls.v2ModernOnly)),
    modernOnlyLegacy: ourSubject(ours, endpoint.modernOnly, http(urls.v2ModernOnly), "legacy"),
    both: ourSubject(ours, endpoint.both, http(urls.v2BothEras)),
    legacySession: ourSubject(ours, endpoint.legacySession, http(urls.v2LegacySession)),
    v1Http: ourSubject(ours, endpoint.v1Http, http(urls.v1)),
    v1HttpLegacy: ourSubject(ours, endpoint.v1Http, http(urls.v1), "legacy"),
    everythingHttp: ourSubject(ours, endpoint.everythingHttp, http(urls.everything)),
    v2Stdio: ourSubject(ours, endpoint.v2Stdio, stdio(v2StdioCommand())),
    v2StdioAuto: ourSubject(ours, endpoint.v2Stdio, stdio(v2StdioCommand()), "auto"),
    everythingStdio: ourSubject(ours, endpoint.everythingStdio, stdio(everythingStdioCommand())),
    everythingStdioAuto: ourSubject(ours, endpoint.everythingStdio, stdio(everythingStdioCommand()), "auto"),
    everythingStdioV1: v1RawSubject(endpoint.everythingStdio, everythingStdioCommand()),
    v1Stdio: ourSubject(ours, endpoint.v1Stdio, stdio(v1StdioCommand())),
    v1StdioV1: v1RawSubject(endpoint.v1Stdio, v1StdioCommand()),
  };
  const subjects = Object.values(s);
  const results = new Map<ConnectSubject, Trials>(subjects.map((x) => [x, { connect: [], close: [], eras: new Map(), tools: new Set(), failed: 0, strays: 0 }]));
  for (let round = 0; round < plan.warmupRounds + trials; round++) {
    // Rotated, and reversed every other round, so no subject always runs right after the same one:
    // whatever a neighbour leaves behind does not fall on one side of a compared pair only.
    const order = rotate(subjects, round);
    if (round % 2 === 1) order.reverse();
    // One full GC per round, not per trial: right after one, an HTTP connect here is 15–20 ms slower
    // (18 → 35 ms to the v2 endpoint), which would time the collector's aftermath, not the connect.
    collect(1);
    for (const subject of order) await trial(subject, round >= plan.warmupRounds ? results.get(subject) : undefined);
  }

  const of = (x: ConnectSubject) => results.get(x)!;
  const rows = subjects.map((x) => {
    const t = of(x);
    return [
      x.endpoint,
      x.how,
      erasText(t.eras),
      [...t.tools].join(", "),
      fmt(p50(t.connect), 1),
      fmt(p90(t.connect), 1),
      fmt(t.connect.length > 0 ? Math.max(...t.connect) : Number.NaN, 1),
      fmt(p50(t.close), 1),
      `${t.connect.length}/${trials}`,
      String(t.strays),
    ];
  });

  // Two ways onto one endpoint: `other` over `base`, p50 over p50 and p90 over p90.
  const versus = (other: ConnectSubject, base: ConnectSubject) => ({ p50: p50(of(other).connect) / p50(of(base).connect), p90: p90(of(other).connect) / p90(of(base).connect) });
  const baseline = [
    [s.everythingStdio, s.everythingStdioV1],
    [s.v1Stdio, s.v1StdioV1],
  ] as const;
  const ratios: Ratio[] = [];
  const baselineRows = baseline.map(([ourDefault, raw]) => {
    const v = versus(ourDefault, raw);
    const whole = (p50(of(ourDefault).connect) + p50(of(ourDefault).close)) / (p50(of(raw).connect) + p50(of(raw).close));
    // Issue 16's goal (≤ 1.10) is not among issue 24's: the figure stays, without a goal.
    ratios.push({ label: `connect, ${ourDefault.endpoint}: ours/v1 raw (no goal)`, value: v.p50 });
    return [ourDefault.endpoint, fmt(p50(of(ourDefault).connect), 1), fmt(p50(of(raw).connect), 1), fmt(v.p50, 2), fmt(v.p90, 2), fmt(whole, 2)];
  });
  const eraPairs: [ConnectSubject, ConnectSubject, string][] = [
    [s.v2StdioAuto, s.v2Stdio, "probe in a second process, then the session's process"],
    [s.everythingStdioAuto, s.everythingStdio, "probe in a second process, then the session's process"],
    [s.v1Http, s.v1HttpLegacy, "one `server/discover` POST before `initialize`"],
    [s.modernOnlyLegacy, s.modernOnly, "`initialize` refused (-32022), then renegotiated"],
  ];
  const eraRows = eraPairs.map(([other, base, why]) => {
    const v = versus(other, base);
    return [other.endpoint, other.how, base.how, fmt(v.p50, 2), fmt(v.p90, 2), why];
  });

  const notes: string[] = [];
  for (const x of subjects) {
    const t = of(x);
    if (t.lastError) notes.push(`${x.endpoint}, ${x.how}: ${t.failed} trial(s) failed; the last said \`${t.lastError}\``);
  }
  return {
    title: "7. Connect time per endpoint and era",
    method:
      `${trials} trials per subject after ${plan.warmupRounds} dropped, all ${subjects.length} subjects in one run, their order rotating each round and reversed every other one. ` +
      "A full GC starts each round (not each trial: right after one, an HTTP connect here is 15–20 ms slower). A trial: `McpToolkit.connect({ servers: { s: config } })` timed until it resolves (it negotiates the era, lists the tools and builds them), then `close()` timed on its own. " +
      "The v1 baseline: `new Client(...)` from `@modelcontextprotocol/sdk` 1.x with its `StdioClientTransport` (stderr piped and drained, as ours), `connect` + `listTools` timed, then `close()`. " +
      "HTTP endpoints on 127.0.0.1: the v2 fixtures (`startV2Http`: `modern-only` is `createMcpHandler` with `legacy: \"reject\"`, `both eras` the same serving 2025 clients statelessly, `sessionful 2025` the v2 Node transport) and the v1 `HttpFixture` run in this process; " +
      "server-everything's streamable HTTP runs in a child started once. stdio servers start per trial: the v1 and v2 fixtures through tsx (`node --import tsx`), server-everything as plain JavaScript.",
    tables: [
      { headers: ["endpoint", "client, era setting", "era reached", "tools", "connect p50 ms", "connect p90 ms", "connect max ms", "close p50 ms", "trials ok", "servers left running"], rows },
      { headers: ["2025-era stdio server", "ours p50 ms", "v1 raw p50 ms", "ours/v1 raw p50", "ours/v1 raw p90", "connect + close, p50s"], rows: baselineRows },
      { headers: ["endpoint", "this", "over this", "p50 ratio", "p90 ratio", "what the first one does more"], rows: eraRows },
    ],
    ratios,
    goals: [],
    notes: [
      `Era reached: \`toolkit.protocolEra("s")\` right after connect; the v1 client only speaks the 2025 revisions. Servers left running: stdio servers of the subject still alive after \`close()\` resolved (killed by the bench).`,
      `stdio defaults to \`era: "${DEFAULT_STDIO_ERA}"\`: with \`"auto"\` the v2 SDK sends \`server/discover\` to a short-lived sibling process started from the same command, reaps it, and only then starts the session's process, so a connect costs two process starts (the third table).`,
      ...notes,
    ],
  };
}
