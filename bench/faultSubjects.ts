/**
 * The "Under faults" section's subjects, each over its own fault proxy in front of one server:
 * the LangChain floor and @langchain/mcp-adapters over a v1 SDK client, and ours over HTTP with
 * the defaults, with hedging, and with hedging and shared reads. Each proxy (in the proxies'
 * child process, proxies.ts) deals the same seeded mix (faultMix.ts) and counts what reaches it.
 */
import type { StructuredToolInterface } from "@langchain/core/tools";
import { loadMcpTools } from "@langchain/mcp-adapters";
import type { McpToolkitConfig, ToolPolicy } from "../src/index.js";
import type { MixPart } from "./faultMix.js";
import { floorTools } from "./floor.js";
import type { Ours } from "./ours.js";
import type { ProxyHost, RemoteProxy } from "./proxies.js";
import { connectHttp } from "./servers.js";

export interface FaultSubject {
  name: string;
  /** Ours: counts its events by type (and a hedge's trigger). */
  events: Map<string, number>;
  proxy: RemoteProxy;
  tool: StructuredToolInterface;
  close: () => Promise<void>;
}

/** How a subject connects, given its proxy's URL: its `lookup` tool and how to close. */
type Connect = (url: URL, events: Map<string, number>) => Promise<{ tool: StructuredToolInterface; close: () => Promise<void> }>;

export async function faultSubject(name: string, host: ProxyHost, upstream: URL, mix: readonly MixPart[], seed: number, connect: Connect): Promise<FaultSubject> {
  const proxy = await host.start(upstream, mix, seed);
  const events = new Map<string, number>();
  try {
    const { tool, close } = await connect(proxy.url, events);
    return { name, events, proxy, tool, close: () => close().finally(() => proxy.close()) };
  } catch (error) {
    await proxy.close();
    throw error;
  }
}

const pick = (tools: StructuredToolInterface[]): StructuredToolInterface => {
  const found = tools.find((t) => t.name === "lookup");
  if (!found) throw new Error("The bench could not find the tool lookup.");
  return found;
};

/** The floor: a bare StructuredTool over a v1 client (bench/floor.ts). */
export const floorOver: Connect = async (url) => {
  const { client, close } = await connectHttp(url);
  return { tool: pick(await floorTools(client)), close };
};

/** The adapters' tool from `loadMcpTools` over a v1 client, no options. */
export const adaptersOver: Connect = async (url) => {
  const { client, close } = await connectHttp(url);
  return { tool: pick(await loadMcpTools("s", client)), close };
};

/**
 * Ours over HTTP: the server's annotations trusted (so `lookup` is read-only, and a reset, whose
 * outcome is unknown, may be repeated), with `policy` for the tool and `extra` for the toolkit.
 */
export function oursOver(ours: Ours, policy: ToolPolicy = {}, extra: Omit<McpToolkitConfig, "servers" | "onEvent"> = {}): Connect {
  return async (url, events) => {
    const toolkit = await ours.McpToolkit.connect({
      ...extra,
      servers: { s: { transport: "http", url, trustAnnotations: true } },
      tools: { lookup: policy },
      onEvent: (e) => {
        const type = e.type === "hedge" ? `hedge ${e.outcome}${e.trigger ? ` (${e.trigger})` : ""}` : e.type;
        events.set(type, (events.get(type) ?? 0) + 1);
      },
    });
    return { tool: pick(toolkit.getTools()), close: () => toolkit.close() };
  };
}
