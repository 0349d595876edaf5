import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_TIMEOUT_MS, type FallbackFunction, type McpToolkitConfig, type ToolPolicy } from "../config.js";
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
}

export interface ToolIdentity {
  /** The name the model sees. */
  exposedName: string;
  serverName: string;
  /** The tool's name on its server. */
  mcpName: string;
  annotations?: ToolAnnotations;
}

/**
 * How specific a `tools` key is for this tool, or -1 when it does not match.
 * Order, least to most specific: globs (more literal characters win), the exposed name,
 * then `<server>/<tool>`.
 */
export function keySpecificity(key: string, tool: ToolIdentity): number {
  const qualified = `${tool.serverName}/${tool.mcpName}`;
  if (!key.includes("*")) {
    if (key === qualified) return 3_000_000;
    if (key === tool.exposedName) return 2_000_000;
    return -1;
  }
  const re = globToRegExp(key);
  if (!re.test(tool.exposedName) && !re.test(qualified)) return -1;
  return key.replaceAll("*", "").length;
}

function globToRegExp(glob: string): RegExp {
  const source = glob.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, "\\$&")).join(".*");
  return new RegExp(`^${source}$`);
}

/** The `tools` entries that match, least specific first, so later ones override. */
export function matchingPolicies(tools: Record<string, ToolPolicy> | undefined, tool: ToolIdentity): ToolPolicy[] {
  if (!tools) return [];
  return Object.entries(tools)
    .map(([key, policy], index) => ({ policy, index, score: keySpecificity(key, tool) }))
    .filter((m) => m.score >= 0)
    .sort((a, b) => a.score - b.score || a.index - b.index)
    .map((m) => m.policy);
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
    resetTimeoutOnProgress: pick("resetTimeoutOnProgress") ?? false,
    idempotent: pick("idempotent") ?? annotated,
  };
  const maxTotal = pick("maxTotalTimeoutMs");
  if (maxTotal !== undefined) policy.maxTotalTimeoutMs = maxTotal;
  const fallback = pick("fallback") ?? server?.fallback;
  if (fallback !== undefined) policy.fallback = fallback;
  return policy;
}
