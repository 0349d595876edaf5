/** bench/results.md: the machine, the goals (PASS/MISS), then every section's method and tables. */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, release, totalmem, type } from "node:os";
import { fmt, type Goal, type Ratio, type SectionResult, type Table } from "./model.js";
import { howCalled } from "./subjects.js";

export interface RunInfo {
  quick: boolean;
  elapsedS: number;
  /** 1-minute load average when the run started. */
  loadAtStart: number;
  /** How our library was loaded (built as shipped, or src/ through tsx). */
  origin: string;
  timings: SectionTiming[];
  /** The commit and src/'s state when our code was loaded (see `codeMeasured`); read at render time when absent. */
  code?: string;
}

/** How long a section ran, and how much CPU this process got meanwhile: a sign of how contended the machine was. */
export interface SectionTiming {
  name: string;
  wallS: number;
  cpuS: number;
  /** 1-minute load average when the section ended. */
  load: number;
}

function git(args: string[]): string {
  try {
    return execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trimEnd();
  } catch {
    return "";
  }
}

function peerVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url), "utf8")) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

/**
 * The commit and whether src/ differs from it. Read when our code is built, not when the report
 * is written: other work may commit to the tree while a run goes on.
 */
export function codeMeasured(): string {
  const commit = git(["rev-parse", "HEAD"]).trim();
  const dirty = git(["status", "--porcelain", "--", "src"])
    .split("\n")
    .filter(Boolean)
    .map((l) => l.slice(3));
  return `commit ${commit || "unknown"}; src/ ${dirty.length > 0 ? `dirty, uncommitted changes in ${dirty.length} file(s): ${dirty.join(", ")}` : "clean"}`;
}

export function machine(code: string = codeMeasured()): string[] {
  const model = cpus()[0]?.model.trim() ?? "unknown";
  return [
    `- Cores: ${availableParallelism()} (CPU: ${model})`,
    `- Memory: ${(totalmem() / 2 ** 30).toFixed(1)} GiB; OS: ${type()} ${release()}`,
    `- Node ${process.version}, V8 ${process.versions.v8}`,
    `- Code measured: ${code}`,
  ];
}

const NUMBER = /^[-+]?[\d,.]+$|^—$|^$/;

function table(t: Table): string {
  const line = (cells: string[]) => `| ${cells.map((c) => c.replace(/\|/g, "\\|")).join(" | ")} |`;
  // Figures align right, words left.
  const align = t.headers.map((_, i) => (t.rows.length > 0 && t.rows.every((r) => NUMBER.test(r[i] ?? "")) ? "---:" : "---"));
  return [line(t.headers), `|${align.join("|")}|`, ...t.rows.map(line)].join("\n");
}

const isGuard = (g: Goal): boolean => g.kind === "guard";

/** A goal's line as the tables show it: a guard's says so. */
export const goalLine = (g: Goal): string => (isGuard(g) ? `guard: ${g.goal}` : g.goal);

/** "3 of 4 goals met; 9 of 10 guards held" (the guards' part only when there are guards). */
export function verdictCount(goals: readonly Goal[]): string {
  const own = goals.filter((g) => !isGuard(g));
  const guards = goals.filter(isGuard);
  const text = `${own.filter((g) => g.pass).length} of ${own.length} goals met`;
  return guards.length === 0 ? text : `${text}; ${guards.filter((g) => g.pass).length} of ${guards.length} guards held`;
}

/** Where the README's Benchmarks section begins and ends: a full run rewrites what lies between. */
export const README_MARKS = ["<!-- bench:start: written by a full `npm run bench` -->", "<!-- bench:end -->"] as const;

/**
 * The README's Benchmarks section, from a full run: the tables a section puts there (the "Under
 * faults" table), the verdicts, and where the detail is. The figures behind each verdict are in
 * bench/results.md; the method in bench/README.md.
 */
export function readmeSection(goals: readonly Goal[], run: RunInfo, tables: readonly { title: string; table: Table }[] = []): string {
  const commit = /commit ([0-9a-f]{7})/.exec(run.code ?? codeMeasured())?.[1] ?? "unknown";
  return [
    README_MARKS[0],
    `\`npm run bench\` measures ours against the LangChain floor (a bare \`StructuredTool\` over the SDK) and \`@langchain/mcp-adapters\`, each server in its own process: under faults (a server behind a fault proxy that fails or slows some of its requests), then inside a LangGraph run over stdio and HTTP. ` +
      `Last full run: commit \`${commit}\`, ${new Date().toISOString().slice(0, 10)}, load average ${run.loadAtStart.toFixed(1)} on ${availableParallelism()} cores; ${verdictCount(goals)}. ` +
      "Goals say what the library is for; guards bound what it costs against the floor and the adapters. " +
      "Every figure, with its method, is in [bench/results.md](bench/results.md); how to run and read it, in [bench/README.md](bench/README.md); several runs side by side, in [docs/benchmarks.md](docs/benchmarks.md).",
    "",
    ...tables.flatMap((t) => [`**${t.title}**`, "", table(t.table), ""]),
    table({ headers: ["goal or guard", "result"], rows: goals.map((g) => [goalLine(g), isGuard(g) ? (g.pass ? "held" : "crossed") : g.pass ? "met" : "missed"]) }),
    README_MARKS[1],
  ].join("\n");
}

/** `readme` with its Benchmarks section replaced by `section`; unchanged if the marks are missing. */
export function withReadmeSection(readme: string, section: string): string {
  const start = readme.indexOf(README_MARKS[0]);
  const end = readme.indexOf(README_MARKS[1]);
  if (start < 0 || end < start) return readme;
  return readme.slice(0, start) + section + readme.slice(end + README_MARKS[1].length);
}

const goalText = (r: Ratio): string => (r.goalMax !== undefined ? `≤ ${r.goalMax.toFixed(2)}` : r.goalMin !== undefined ? `≥ ${r.goalMin.toFixed(2)}` : "");

export function renderMarkdown(sections: SectionResult[], run: RunInfo): string {
  const goals = sections.flatMap((s) => s.goals);
  const ratios = sections.flatMap((s) => s.ratios);
  const out: string[] = [
    "# Benchmark results",
    "",
    `Generated by \`npm run bench${run.quick ? " -- --quick" : ""}\` on ${new Date().toISOString()} ` +
      `(${run.quick ? "quick run: fewer iterations, figures are rough" : "full run"}; ${run.elapsedS.toFixed(0)} s).`,
    "",
    "## Machine",
    "",
    ...machine(run.code),
    `- Ours: ${run.origin}; @langchain/mcp-adapters ${peerVersion("@langchain/mcp-adapters")}, @langchain/core ${peerVersion("@langchain/core")}, @modelcontextprotocol/sdk ${peerVersion("@modelcontextprotocol/sdk")} (v1), @modelcontextprotocol/client ${peerVersion("@modelcontextprotocol/client")} (v2, the client ours runs on)`,
    `- Load average: ${run.loadAtStart.toFixed(2)} at the start, ${loadavg()[0]!.toFixed(2)} at the end. Other work on the machine slows every subject; ` +
      "subjects are interleaved in rounds so it falls on all of them alike, which keeps the ratios fair even when absolute figures move.",
    "",
    "Per section: wall time, and the CPU this process got meanwhile (servers in child processes not counted). Well under one core for a section that runs in this process alone means the machine was contended.",
    "",
    table({
      headers: ["section", "wall s", "CPU s", "cores got", "load average at end"],
      rows: run.timings.map((t) => [t.name, fmt(t.wallS, 1), fmt(t.cpuS, 1), fmt(t.cpuS / t.wallS, 2), fmt(t.load, 2)]),
    }),
    "",
    "## Goals and guards",
    "",
    `Issue 45's goals (what the library is for: calls that succeed under faults, a shorter tail with hedging, a fallback that takes the load off a failing server, a throttle that stops 429s) and guards (what it costs, each time ratio paired round by round and checked on the paired batch medians), computed from this run: ${verdictCount(goals)}.`,
    "",
    table({ headers: ["goal or guard", "figure", "result"], rows: goals.map((g) => [goalLine(g), g.figure, g.pass ? "PASS" : "MISS"]) }),
    "",
    "## How each subject is called",
    "",
    "Every subject of a comparison shares one connected client. Inside LangGraph, each call is one run of " +
      "`new StateGraph(MessagesAnnotation).addNode(\"tools\", node).addEdge(START, \"tools\").addEdge(\"tools\", END).compile()`, " +
      "invoked with an AIMessage carrying one tool call `{ type: \"tool_call\", id, name, args }`; `toolCall` below is that same object.",
    "",
    table({ headers: ["where", "subject", "call"], rows: howCalled() }),
    "",
    "## Ratios",
    "",
    "For times, below 1 means ours is faster; for throughput (calls/s), above 1 does. Charted in [results.svg](results.svg).",
    "",
    table({ headers: ["ratio", "value", "goal"], rows: ratios.map((r) => [r.label, r.value.toFixed(2), goalText(r)]) }),
    "",
  ];
  for (const s of sections) {
    out.push(`## ${s.title}`, "", s.method, "");
    for (const t of s.tables) out.push(table(t), "");
    for (const n of s.notes) out.push(`- ${n}`);
    if (s.notes.length > 0) out.push("");
  }
  return `${out.join("\n").trimEnd()}\n`;
}
