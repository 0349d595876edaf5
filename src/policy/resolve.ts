import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_TIMEOUT_MS, DEFAULT_TOOL_POLICY, derivedDeadlineMs, type FallbackFunction, type McpToolkitConfig, type ToolPolicy } from "../config/index.js";
import { HedgeOptionsSchema, type HedgeOptions } from "../config/toolPolicy.js";
import type { ChaosOptions } from "../config/chaos.js";
import { resolveRetry, type ResolvedRetry, type RetryOptions } from "./RetryPolicy.js";

/** Everything the pipeline needs to run one tool, resolved once when the tool is built. */
export interface ResolvedPolicy {
  retry: ResolvedRetry;
  timeoutMs: number;
  resetTimeoutOnProgress: boolean;
  maxTotalTimeoutMs?: number;
  fallback?: string | FallbackFunction;
  /** Is repeating this tool harmless? From config, else from trusted annotations (a read-only tool is). */
  idempotent: boolean;
  /** Does this tool only read? From config (`readOnly`), else from a trusted `readOnlyHint`. */
  readOnly: boolean;
  /** Do identical calls in flight share one request? Only ever true for a read-only tool (see sharingCheck.ts). */
  coalesce: boolean;
  /** Hedged calls (Hedger), with the defaults filled in; only ever set for a read-only tool (see sharingCheck.ts). */
  hedge?: Required<HedgeOptions>;
  /** The nearest layer's `chaos` (a tool's, the server's, the toolkit's), unless that says `false`. */
  chaos?: ChaosOptions;
  /** When calls run as MCP Tasks. */
  task: "auto" | "always" | "never";
  /** Are the configuration's secrets removed from this tool's successful results? */
  redactResults: boolean;
  /** The configured idempotency-key property, or `false` for none; unset, the input schema decides (see toolCaller). */
  idempotencyKey?: string | false;
  /** The longest the whole call may take, in milliseconds (Infinity for no bound). */
  deadlineMs: number;
  /** The least time left of the deadline for an attempt to be sent. */
  minAttemptMs: number;
}

export interface ToolIdentity {
  /** The name the model sees. */
  exposedName: string;
  serverName: string;
  /** The tool's name on its server. */
  mcpName: string;
  annotations?: ToolAnnotations;
}

/** A `tools` key, compiled once per configuration. */
interface CompiledKey {
  key: string;
  policy: ToolPolicy;
  index: number;
  /**
   * For a glob: the pattern, how many literal characters it has, and the literal text before its
   * first `*` and after its last, checked first: most names fail there, without the pattern.
   */
  glob?: { re: RegExp; literals: number; prefix: string; suffix: string };
}

/**
 * A configuration's `tools` keys, compiled, and indexed by the literal text a name must start or
 * end with to match: a tool is checked against the few keys its names can match, not every key.
 * 1,000 tools against 200 globs made 400,000 glob checks, a third of building them. Issue 33's
 * goal is connect + getTools at most 50 ms: a full bench run measured 52.8 ms before the index;
 * the section alone, three runs each, alternating, went from 22.9-25.6 ms to 15.7-19.0 ms.
 */
interface KeyIndex {
  /** Keys without `*` (an exposed name, or `<server>/<tool>`), by key. */
  exact: Map<string, CompiledKey>;
  /** Globs with literal text before their first `*`: by that text's length, then by the text. */
  byPrefix: Map<number, Map<string, CompiledKey[]>>;
  /** Globs that start with `*` and end in literal text: likewise, by the text after their last `*`. */
  bySuffix: Map<number, Map<string, CompiledKey[]>>;
  /** Globs with no literal text at either end (`*`, `*search*`): candidates for every name. */
  anywhere: CompiledKey[];
}

// Built once per `tools` object: 1,000 tools against 200 globs compile 200 patterns, not 200,000.
const indexes = new WeakMap<Record<string, ToolPolicy>, KeyIndex>();

function indexOf(tools: Record<string, ToolPolicy>): KeyIndex {
  let index = indexes.get(tools);
  if (index) return index;
  index = { exact: new Map(), byPrefix: new Map(), bySuffix: new Map(), anywhere: [] };
  Object.entries(tools).forEach(([key, policy], position) => {
    if (!key.includes("*")) return void index!.exact.set(key, { key, policy, index: position });
    const glob = compileGlob(key);
    const compiled = { key, policy, index: position, glob };
    if (glob.prefix) addBy(index!.byPrefix, glob.prefix, compiled);
    else if (glob.suffix) addBy(index!.bySuffix, glob.suffix, compiled);
    else index!.anywhere.push(compiled);
  });
  indexes.set(tools, index);
  return index;
}

function addBy(byLength: Map<number, Map<string, CompiledKey[]>>, text: string, key: CompiledKey): void {
  let byText = byLength.get(text.length);
  if (!byText) byLength.set(text.length, (byText = new Map()));
  const keys = byText.get(text);
  if (keys) keys.push(key);
  else byText.set(text, [key]);
}

/** Adds to `into` every key that `name` could match: none that it cannot is left in. */
function addCandidates(index: KeyIndex, name: string, into: Set<CompiledKey>): void {
  const exact = index.exact.get(name);
  if (exact) into.add(exact);
  for (const [length, byText] of index.byPrefix) {
    if (name.length >= length) for (const key of byText.get(name.slice(0, length)) ?? []) into.add(key);
  }
  for (const [length, byText] of index.bySuffix) {
    if (name.length >= length) for (const key of byText.get(name.slice(name.length - length)) ?? []) into.add(key);
  }
  for (const key of index.anywhere) into.add(key);
}

/**
 * How specific a compiled key is for this tool, or -1 when it does not match.
 * Order, least to most specific: globs (more literal characters win), the exposed name,
 * then `<server>/<tool>`.
 */
function specificity(key: CompiledKey, tool: ToolIdentity, qualified: string): number {
  if (!key.glob) {
    if (key.key === qualified) return 3_000_000;
    if (key.key === tool.exposedName) return 2_000_000;
    return -1;
  }
  return globMatches(key.glob, tool.exposedName) || globMatches(key.glob, qualified) ? key.glob.literals : -1;
}

function compileGlob(key: string): NonNullable<CompiledKey["glob"]> {
  return {
    re: globToRegExp(key),
    literals: key.replaceAll("*", "").length,
    prefix: key.slice(0, key.indexOf("*")),
    suffix: key.slice(key.lastIndexOf("*") + 1),
  };
}

function globMatches(glob: NonNullable<CompiledKey["glob"]>, name: string): boolean {
  return name.length >= glob.prefix.length + glob.suffix.length && name.startsWith(glob.prefix) && name.endsWith(glob.suffix) && glob.re.test(name);
}

function globToRegExp(glob: string): RegExp {
  const source = glob.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, "\\$&")).join(".*");
  return new RegExp(`^${source}$`);
}

/** Whether a name is the pattern, or matches it where it has `*`: the server part of a `tools` key. */
export function nameMatcher(pattern: string): (name: string) => boolean {
  if (!pattern.includes("*")) return (name) => name === pattern;
  const re = globToRegExp(pattern);
  return (name) => re.test(name);
}

/** Whether a tool matches one `tools` key or tool filter pattern: the pattern compiled once, for many tools. */
export function toolMatcher(pattern: string): (tool: Omit<ToolIdentity, "annotations">) => boolean {
  const key: CompiledKey = pattern.includes("*") ? { key: pattern, policy: {}, index: 0, glob: compileGlob(pattern) } : { key: pattern, policy: {}, index: 0 };
  return (tool) => specificity(key, tool, `${tool.serverName}/${tool.mcpName}`) >= 0;
}

/** The `tools` entries that match, least specific first, so later ones override. */
export function matchingPolicies(tools: Record<string, ToolPolicy> | undefined, tool: ToolIdentity): ToolPolicy[] {
  if (!tools) return [];
  const qualified = `${tool.serverName}/${tool.mcpName}`;
  const index = indexOf(tools);
  const candidates = new Set<CompiledKey>();
  addCandidates(index, tool.exposedName, candidates);
  addCandidates(index, qualified, candidates);
  const matches: { key: CompiledKey; score: number }[] = [];
  for (const key of candidates) {
    const score = specificity(key, tool, qualified);
    if (score >= 0) matches.push({ key, score });
  }
  return matches.sort((a, b) => a.score - b.score || a.key.index - b.key.index).map((m) => m.key.policy);
}

/**
 * Resolves a tool's policy. Layers, lowest first: built-in defaults, the toolkit's `retry`
 * and `timeoutMs`, the server's, then every matching `tools` key by specificity.
 */
export function resolvePolicy(tool: ToolIdentity, config: McpToolkitConfig): ResolvedPolicy {
  const server = config.servers[tool.serverName];
  const layers = matchingPolicies(config.tools, tool);
  const retryLayers: (RetryOptions | undefined)[] = [config.retry, server?.retry, ...layers.map((l) => l.retry)];
  const pick = <K extends keyof ToolPolicy>(key: K): ToolPolicy[K] | undefined => {
    let value: ToolPolicy[K] | undefined;
    for (const layer of layers) if (layer[key] !== undefined) value = layer[key];
    return value;
  };
  const trusted = server?.trustAnnotations === true;
  const readOnly = pick("readOnly") ?? (trusted && tool.annotations?.readOnlyHint === true);
  const annotated = readOnly || (trusted && tool.annotations?.idempotentHint === true);
  const policy: ResolvedPolicy = {
    retry: resolveRetry(...retryLayers),
    timeoutMs: pick("timeoutMs") ?? server?.timeoutMs ?? config.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    resetTimeoutOnProgress: pick("resetTimeoutOnProgress") ?? DEFAULT_TOOL_POLICY.resetTimeoutOnProgress,
    idempotent: pick("idempotent") ?? annotated,
    readOnly,
    // A write is never merged with another: `coalesce` on a tool not known to only read is refused at connect.
    coalesce: readOnly && (pick("coalesce") ?? DEFAULT_TOOL_POLICY.coalesce),
    task: pick("task") ?? DEFAULT_TOOL_POLICY.task,
    redactResults: pick("redactResults") ?? DEFAULT_TOOL_POLICY.redactResults,
    deadlineMs: Number.POSITIVE_INFINITY,
    minAttemptMs: pick("minAttemptMs") ?? DEFAULT_TOOL_POLICY.minAttemptMs,
  };
  const maxTotal = pick("maxTotalTimeoutMs");
  if (maxTotal !== undefined) policy.maxTotalTimeoutMs = maxTotal;
  policy.deadlineMs = pick("deadlineMs") ?? server?.deadlineMs ?? config.deadlineMs ?? derivedDeadlineMs(policy);
  const keyProperty = pick("idempotencyKey");
  if (keyProperty !== undefined) policy.idempotencyKey = keyProperty;
  const hedge = pick("hedge");
  // Two writes sent at once race: a tool not known to only read is never hedged.
  if (hedge && readOnly) policy.hedge = HedgeOptionsSchema.parse(hedge) as Required<HedgeOptions>;
  const chaos = pick("chaos") ?? server?.chaos ?? config.chaos;
  if (chaos) policy.chaos = chaos;
  const fallback = pick("fallback") ?? server?.fallback;
  if (fallback !== undefined) policy.fallback = fallback;
  return policy;
}
