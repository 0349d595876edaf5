import type { CallbackManagerForToolRun } from "@langchain/core/callbacks/manager";
import { platform } from "../platform/index.js";
import type { EventHub } from "../eventHub.js";
import type { McpEvent, ProgressEvent } from "../events.js";

/** The LangChain tool run a call belongs to. */
export interface ToolRun {
  runManager?: CallbackManagerForToolRun | undefined;
  /** The model's tool call id, when the tool was invoked with one. */
  toolCallId?: string | undefined;
  /** LangGraph's stream writer (`streamMode: "custom"`), when a graph runs the tool and the toolkit has `streamProgress`. */
  writer?: ((chunk: unknown) => void) | undefined;
}

/**
 * Carries the tool run through the call's async work, so that a retry, a fallback or a
 * reconnect deep in the pipeline can be reported inside it. Entered only when someone listens
 * (callbacks, a tracer, or OpenTelemetry): on Node 20 the first `run` turns on async hooks.
 */
const runs = platform.runContext<ToolRun>();

/** The tool run the current async context belongs to, if any. */
export function currentToolRun(): ToolRun | undefined {
  return runs.getStore();
}

/**
 * The model's tool call id, and with `streamProgress` the graph's stream writer, from the config
 * a tool was invoked with. The writer is taken only when asked for: LangGraph gives every node
 * one, and a tool cannot tell whether the run streams `custom` (the writer drops its chunks when
 * it does not), so a writer taken by default would ask for progress on every call in a graph.
 * Measured (bench, over stdio, `graph.invoke`): that progress token cost a JSON-RPC error's tool
 * window about 45 µs (ours/adapters 1.29 against 1.19), and a whole createAgent run with `echo`
 * ours/adapters 1.04–1.05 against 1.00–1.02.
 */
export function toolRunOf(config: unknown, streamProgress = false): Pick<ToolRun, "writer" | "toolCallId"> {
  const { writer, toolCall } = (config ?? {}) as { writer?: unknown; toolCall?: { id?: unknown } };
  const toolCallId = typeof toolCall?.id === "string" ? toolCall.id : undefined;
  return streamProgress && typeof writer === "function" ? { writer: writer as (chunk: unknown) => void, toolCallId } : { toolCallId };
}

/** Runs `fn` inside `run`. */
export function withToolRun<T>(run: ToolRun, fn: () => Promise<T>): Promise<T> {
  return runs.run(run, fn);
}

/** The custom event names a tool run receives; `data` is the event without its `type`. */
export const RUN_EVENT_NAMES = {
  retry: "mcp_retry",
  fallback: "mcp_fallback",
  reconnect: "mcp_reconnect",
  task: "mcp_task",
  circuit_open: "mcp_circuit_open",
  half_open: "mcp_half_open",
  circuit_close: "mcp_circuit_close",
} as const satisfies Partial<Record<McpEvent["type"], string>>;

type Forwarded = keyof typeof RUN_EVENT_NAMES;

/**
 * Reports the hub's retries, fallbacks, reconnects and circuit changes inside the LangChain
 * tool run they happened in: as a custom event (`handleCustomEvent`, seen by every callback
 * handler and by `streamEvents`), and as an event on the traced run itself, which LangSmith
 * shows in the run's timeline. The hub's events carry redacted errors; only the error's
 * reason and message go along.
 */
export function forwardToToolRuns(hub: EventHub): void {
  for (const type of Object.keys(RUN_EVENT_NAMES) as Forwarded[]) hub.on(type, (event: McpEvent) => report(event));
}

/** The custom event a tool run receives for each progress notification of its call. */
export const PROGRESS_EVENT_NAME = "mcp_progress";

/**
 * Reports a call's progress inside its tool run: a custom event `mcp_progress` (callback
 * handlers, `streamEvents`), and, with `streamProgress`, when a LangGraph graph runs the tool, a
 * chunk on its custom stream (`stream(..., { streamMode: "custom" })`) shaped
 * `{ event: "mcp_progress", ...data }`. `call` is the call's own run: the writer it was given.
 */
export function reportProgress(event: ProgressEvent, call?: ToolRun): void {
  const runManager = runs.getStore()?.runManager;
  const writer = call?.writer;
  if (!runManager && !writer) return;
  const data = payloadOf(event);
  if (writer) {
    try {
      writer({ event: PROGRESS_EVENT_NAME, ...data });
    } catch {
      // The graph's stream is the reader's; its failure is not the call's.
    }
  }
  if (runManager) toRun(runManager, PROGRESS_EVENT_NAME, data);
}

function report(event: McpEvent): void {
  const run = runs.getStore()?.runManager;
  if (!run) return;
  toRun(run, RUN_EVENT_NAMES[event.type as Forwarded], payloadOf(event));
}

function toRun(run: CallbackManagerForToolRun, name: string, data: Record<string, unknown>): void {
  // Callbacks may be async and may fail; neither may hold up or break the call.
  run.handleCustomEvent(name, data, run.runId).catch(() => undefined);
  const time = new Date().toISOString();
  for (const handler of run.handlers) {
    // A tracer (LangSmith's included) keeps its open runs in `runMap`; their `events` are sent with the run.
    const traced = (handler as { runMap?: Map<string, { events?: unknown[] }> }).runMap?.get(run.runId);
    traced?.events?.push({ name, time, kwargs: data });
  }
}

function payloadOf(event: McpEvent): Record<string, unknown> {
  const { type: _type, ...rest } = event;
  if (!("error" in rest) || !rest.error) return rest;
  const { error, ...others } = rest;
  return { ...others, reason: error.reason, message: error.message };
}
