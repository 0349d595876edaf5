import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_TIMEOUT_MS, DEFAULT_TOOL_POLICY, type FallbackFunction, type McpToolkitConfig, type ToolPolicy } from "../config/index.js";
import { resolveRetry, type ResolvedRetry, type RetryOptions } from "./RetryPolicy.js";

/** Everything the pipeline needs to run one tool, resolved once when the tool is built. */
export interface ResolvedPolicy {
  retry: ResolvedRetry;
  timeoutMs: number;
  resetTimeoutOnProgress: boolean;
  maxTotalTimeoutMs?: number;
  fallback?: string | FallbackFunction;
  /** Is repeating this tool harmless? From config, else from trusted annotations. */
  idempotent: boolean;
  /** When calls run as MCP Tasks. */
  task: "auto" | "always" | "never";
  /** Are the configuration's secrets removed from this tool's successful results? */
  redactResults: boolean;
  /** The configured idempotency-key property, or `false` for none; unset, the input schema decides (see toolCaller). */
  idempotencyKey?: string | false;
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

// Compiled per `tools` object: 1,000 tools matched against 200 globs compile 200 patterns, not 200,000.
const compiledKeys = new WeakMap<Record<string, ToolPolicy>, CompiledKey[]>();

function compile(tools: Record<string, ToolPolicy>): CompiledKey[] {
  let keys = compiledKeys.get(tools);
  if (!keys) {
    keys = Object.entries(tools).map(([key, policy], index) =>
      key.includes("*") ? { key, policy, index, glob: compileGlob(key) } : { key, policy, index },
    );
    compiledKeys.set(tools, keys);
  }
  return keys;
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

/** Whether a tool matches one `tools` key or tool filter pattern: the pattern compiled once, for many tools. */
export function toolMatcher(pattern: string): (tool: Omit<ToolIdentity, "annotations">) => boolean {
  const key: CompiledKey = pattern.includes("*") ? { key: pattern, policy: {}, index: 0, glob: compileGlob(pattern) } : { key: pattern, policy: {}, index: 0 };
  return (tool) => specificity(key, tool, `${tool.serverName}/${tool.mcpName}`) >= 0;
}

/** The `tools` entries that match, least specific first, so later ones override. */
export function matchingPolicies(tools: Record<string, ToolPolicy> | undefined, tool: ToolIdentity): ToolPolicy[] {
  if (!tools) return [];
  const qualified = `${tool.serverName}/${tool.mcpName}`;
  const matches: { key: CompiledKey; score: number }[] = [];
  for (const key of compile(tools)) {
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
  const annotated = trusted && (tool.annotations?.readOnlyHint === true || tool.annotations?.idempotentHint === true);
  const policy: ResolvedPolicy = {
    retry: resolveRetry(...retryLayers),
    timeoutMs: pick("timeoutMs") ?? server?.timeoutMs ?? config.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    resetTimeoutOnProgress: pick("resetTimeoutOnProgress") ?? DEFAULT_TOOL_POLICY.resetTimeoutOnProgress,
    idempotent: pick("idempotent") ?? annotated,
    task: pick("task") ?? DEFAULT_TOOL_POLICY.task,
    redactResults: pick("redactResults") ?? DEFAULT_TOOL_POLICY.redactResults,
  };
  const maxTotal = pick("maxTotalTimeoutMs");
  if (maxTotal !== undefined) policy.maxTotalTimeoutMs = maxTotal;
  const keyProperty = pick("idempotencyKey");
  if (keyProperty !== undefined) policy.idempotencyKey = keyProperty;
  const fallback = pick("fallback") ?? server?.fallback;
  if (fallback !== undefined) policy.fallback = fallback;
  return policy;
}
