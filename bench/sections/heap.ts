/**
 * 6. Heap per in-flight call: N calls held open by the server at once, the client's heap
 * measured after forced GC while they wait, then after they all answer. The server runs in
 * a child process over stdio, so its memory is not counted.
 *
 * The client runs in a child process of its own too (`heapChild.ts`), so the figures do not
 * depend on which sections ran before. Once any AsyncLocalStorage has been entered, Node 20
 * keeps async hooks on for the rest of the process and every promise grows; LangChain and
 * LangGraph enter one in every run. The child measures first as a fresh process (the
 * condition of issue 16's figures), then with an AsyncLocalStorage entered, as any process
 * that has run a graph is: the guard (ours/floor, paired round by round) holds in both.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { BenchContext } from "../context.js";
import { GUARDS } from "../goals.js";
import { fmt, type SectionResult } from "../model.js";
import { roleEnv } from "../servers.js";
import { median, pairedRatio } from "../stats.js";
import type { HeapFigures } from "./heapChild.js";

const child = fileURLToPath(new URL("./heapChild.ts", import.meta.url));

/** Runs the measurement in a child process (with this process's flags: --expose-gc, tsx) and reads its JSON. */
function measureInChild(oursPath: string, rounds: number, inFlight: number): Promise<HeapFigures> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [...process.execArgv, child], {
      env: { ...process.env, ...roleEnv("bench-heap-client"), BENCH_OURS: oursPath, BENCH_HEAP: JSON.stringify({ rounds, inFlight }) },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    proc.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    proc.once("error", reject);
    proc.once("exit", (code) => {
      if (code !== 0) return reject(new Error(`The heap child exited with ${code}.`));
      try {
        resolve(JSON.parse(out.trim().split("\n").at(-1)!) as HeapFigures);
      } catch (error) {
        reject(new Error(`The heap child printed no figures: ${String(error)}`));
      }
    });
  });
}

export async function heapPerCall({ plan, oursPath }: BenchContext): Promise<SectionResult> {
  const { rounds, inFlight: n } = plan.heap;
  const figures = await measureInChild(oursPath, rounds, n);
  const kb = (b: number) => b / 1024;
  const conditions = [
    ["fresh process", figures.fresh],
    ["async hooks on", figures.hooked],
  ] as const;
  const rows = conditions.flatMap(([condition, bySubject]) =>
    Object.entries(bySubject).map(([subject, b]) => [condition, subject, fmt(kb(median(b.inFlight)), 2), b.inFlight.map((x) => fmt(kb(x), 2)).join(", "), fmt(median(b.retained), 0)]),
  );
  const kbOf = (bySubject: HeapFigures["fresh"], subject: string) => kb(median(bySubject[subject]!.inFlight));
  // Ours over the floor, each round's figure over the floor's in the same round (rotated order), then the median.
  const vsFloor = (bySubject: HeapFigures["fresh"]) => pairedRatio(bySubject.ours!.inFlight, bySubject.floor!.inFlight);
  const hooked = vsFloor(figures.hooked);
  const fresh = vsFloor(figures.fresh);
  return {
    title: "6. Heap per in-flight call",
    method:
      `Over stdio to the bench server in a child process, from a client in a child process of its own (so earlier sections leave nothing behind in it). Each measurement: 3× gc(), heapUsed; ${n.toLocaleString("en-US")} calls of \`hold\` started at once and left waiting ` +
      "(`held`, polled until the server holds them all; each poll has answered before the heap is read); 3× gc(), heapUsed; then `release`, every call awaited, 3× gc(), heapUsed. " +
      `${rounds} rounds, subject order rotated, after a warm-up. Each subject called bare (raw: \`callTool\`; the others: \`invoke(toolCall)\`, no config). ` +
      "Two conditions, in this order: a fresh process, as issue 16 measured its figures; then after an AsyncLocalStorage has been entered, as LangChain and LangGraph do in every run: from then on Node 20 keeps async hooks on, and every promise is bigger. " +
      "The guard (issue 45) holds in both (a process running LangChain is in the second): ours over the floor (the LangChain floor of section 1 over the same client), each round's figure over the floor's in the same round, then the median over rounds.",
    tables: [{ headers: ["condition", "subject", "median KB per in-flight call", "each round, KB", "bytes per call left after all answered"], rows }],
    ratios: [{ label: "heap per in-flight call (async hooks on): ours/floor", value: hooked, goalMax: GUARDS.heapVsFloor }],
    goals: [
      {
        kind: "guard",
        goal: `heap per in-flight call, async hooks on and in a fresh process: ours/floor ≤ ${GUARDS.heapVsFloor.toFixed(2)}`,
        figure: `paired: hooks on ${fmt(hooked, 3)} (ours ${fmt(kbOf(figures.hooked, "ours"), 2)} KB, floor ${fmt(kbOf(figures.hooked, "floor"), 2)} KB); fresh ${fmt(fresh, 3)}`,
        pass: hooked <= GUARDS.heapVsFloor && fresh <= GUARDS.heapVsFloor,
      },
    ],
    notes: [
      `In a fresh process, ours is ${fmt(kbOf(figures.fresh, "ours"), 2)} KB per in-flight call against the floor's ${fmt(kbOf(figures.fresh, "floor"), 2)} KB (paired ${fmt(fresh, 2)}×).`,
      `With async hooks on, ours is ${fmt(kbOf(figures.hooked, "ours"), 2)} KB per in-flight call against the adapters' ${fmt(kbOf(figures.hooked, "adapters"), 2)} KB and the floor's ${fmt(kbOf(figures.hooked, "floor"), 2)} KB.`,
    ],
  };
}
