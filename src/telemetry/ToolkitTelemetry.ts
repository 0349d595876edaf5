import { SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from "@opentelemetry/api";
import { isControlFlow } from "../errors/controlFlow.js";
import { isMcpToolError, type McpToolError } from "../errors/McpToolError.js";
import type { EventHub } from "../eventHub.js";
import type { McpEvent, ProgressEvent } from "../events.js";
import type { CallContext } from "../policy/abort.js";
import type { Instrumentation } from "../policy/pipeline.js";
import { EVENTS, OURS, SEMCONV } from "./attributes.js";
import { instruments, metricsOn, otelContext, telemetryOn, traceMeta, tracer, tracingOn } from "./otel.js";
import { serverAttributes, type ConnectionView } from "./server.js";

/** What the toolkit tells its telemetry, all read lazily, at the end of a call or an attempt. */
export interface TelemetrySources {
  /** A server's connection: its session, protocol version, transport and address. */
  connection?: (serverName: string) => ConnectionView | undefined;
  /** A tool's name on its server and its description, by the name the model called. */
  tool?: (toolName: string) => { mcpName: string; description?: string } | undefined;
  /** The id of the model's tool call being run, when the caller knows it. */
  toolCallId?: () => string | undefined;
  /** Removes secrets from an error before its message goes on a span. */
  redact?: (error: McpToolError) => McpToolError;
}

type CircuitState = "closed" | "open" | "half-open";
const CIRCUIT_VALUE: Record<CircuitState, number> = { closed: 0, "half-open": 1, open: 2 };

/** One call in flight: its span (when tracing) and what its attempts add up to. */
interface CallState {
  span: Span | undefined;
  ctx: Context;
  attempts: number;
  mcpName: string;
}

/**
 * OpenTelemetry for a toolkit's calls: a span per call, a child span per attempt, the trace
 * context in each request's `_meta`, span events and metrics for retries, reconnects,
 * fallbacks and circuit changes. With no tracer or meter provider registered it does nothing:
 * every entry point checks one global slot first and hands the call straight through.
 */
export class ToolkitTelemetry implements Instrumentation {
  /** Keyed by the call's context object, which the pipeline passes to the call and to each of its attempts. */
  private readonly calls = new WeakMap<CallContext, CallState>();
  private readonly circuits = new Map<string, CircuitState>();

  constructor(hub: EventHub, private readonly sources: TelemetrySources = {}) {
    // These events are emitted synchronously inside the call's (or attempt's) context, so the
    // active span is the one they happened in.
    hub.on("retry", (e) => this.onEvent(e));
    hub.on("reconnect", (e) => this.onEvent(e));
    hub.on("fallback", (e) => this.onEvent(e));
    hub.on("hedge", (e) => this.onEvent(e));
    hub.on("circuit_open", (e) => this.onEvent(e));
    hub.on("half_open", (e) => this.onEvent(e));
    hub.on("circuit_close", (e) => this.onEvent(e));
  }

  call<T>(context: CallContext, run: () => Promise<T>): Promise<T> {
    return telemetryOn() ? this.tracedCall(context, run) : run();
  }

  attempt<T>(context: CallContext, attemptNumber: number, run: (meta: Record<string, string> | undefined) => Promise<T>): Promise<T> {
    const state = this.calls.get(context);
    return state ? this.tracedAttempt(context, state, attemptNumber, run) : run(undefined);
  }

  private async tracedCall<T>(context: CallContext, run: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const tool = this.sources.tool?.(context.toolName);
    let span: Span | undefined;
    if (tracingOn()) {
      const callId = this.sources.toolCallId?.();
      span = tracer().startSpan(`execute_tool ${context.toolName}`, {
        kind: SpanKind.INTERNAL,
        attributes: {
          [SEMCONV.GEN_AI_OPERATION_NAME]: "execute_tool",
          [SEMCONV.GEN_AI_TOOL_NAME]: context.toolName,
          [SEMCONV.MCP_METHOD_NAME]: "tools/call",
          ...(callId ? { [SEMCONV.GEN_AI_TOOL_CALL_ID]: callId } : {}),
          ...(tool?.description ? { [SEMCONV.GEN_AI_TOOL_DESCRIPTION]: tool.description } : {}),
          ...(context.serverName ? { [OURS.SERVER_NAME]: context.serverName } : {}),
        },
      });
    }
    const active = otelContext.active();
    const state: CallState = { span, ctx: span ? trace.setSpan(active, span) : active, attempts: 0, mcpName: tool?.mcpName ?? context.toolName };
    this.calls.set(context, state);
    try {
      const out = await otelContext.with(state.ctx, run);
      const fallback = (out as { fallback?: { name?: unknown } } | undefined)?.fallback?.name;
      this.endCall(context, state, started, undefined, typeof fallback === "string" ? fallback : undefined);
      return out;
    } catch (error) {
      // A LangGraph interrupt (or any signal not ours) ends the call as what it is, never as a failure.
      this.endCall(context, state, started, isMcpToolError(error) ? error : undefined, undefined, isControlFlow(error) ? "interrupted" : undefined);
      throw error;
    } finally {
      this.calls.delete(context);
    }
  }

  private async tracedAttempt<T>(
    context: CallContext,
    state: CallState,
    n: number,
    run: (meta: Record<string, string> | undefined) => Promise<T>,
  ): Promise<T> {
    state.attempts = n;
    const started = performance.now();
    const span = state.span
      ? tracer().startSpan(
          `tools/call ${state.mcpName}`,
          {
            kind: SpanKind.CLIENT,
            attributes: {
              [SEMCONV.MCP_METHOD_NAME]: "tools/call",
              [SEMCONV.GEN_AI_OPERATION_NAME]: "execute_tool",
              [SEMCONV.GEN_AI_TOOL_NAME]: state.mcpName,
              [OURS.ATTEMPT]: n,
              ...(context.serverName ? { [OURS.SERVER_NAME]: context.serverName } : {}),
            },
          },
          state.ctx,
        )
      : undefined;
    const ctx = span ? trace.setSpan(state.ctx, span) : state.ctx;
    const meta = span ? traceMeta(ctx) : undefined;
    let failure: McpToolError | undefined;
    try {
      return await otelContext.with(ctx, () => run(meta));
    } catch (error) {
      if (isMcpToolError(error)) failure = error;
      throw error;
    } finally {
      this.endAttempt(context, state, span, started, failure);
    }
  }

  private endAttempt(context: CallContext, state: CallState, span: Span | undefined, started: number, error: McpToolError | undefined): void {
    // Read after the attempt: a (re)connect during it may have opened a new session.
    const server = context.serverName ? serverAttributes(this.sources.connection?.(context.serverName)) : {};
    const failure = error ? errorAttributes(error) : {};
    if (span) {
      span.setAttributes({ ...server, ...failure });
      if (error) this.markFailed(span, error);
      span.end();
    }
    if (metricsOn()) {
      const attributes: Attributes = {
        [SEMCONV.MCP_METHOD_NAME]: "tools/call",
        [SEMCONV.GEN_AI_OPERATION_NAME]: "execute_tool",
        [SEMCONV.GEN_AI_TOOL_NAME]: state.mcpName,
        ...withoutSession(server),
        ...failure,
        ...(context.serverName ? { [OURS.SERVER_NAME]: context.serverName } : {}),
      };
      instruments().operationDuration.record((performance.now() - started) / 1000, attributes);
    }
  }

  private endCall(context: CallContext, state: CallState, started: number, error: McpToolError | undefined, fallback: string | undefined, other?: "interrupted"): void {
    const attempts = Math.max(state.attempts, error?.attempts ?? 0);
    const circuit = context.serverName ? (this.circuits.get(context.serverName) ?? "closed") : undefined;
    const span = state.span;
    if (span) {
      span.setAttributes({
        [OURS.ATTEMPTS]: attempts,
        ...(circuit ? { [OURS.CIRCUIT_STATE]: circuit } : {}),
        ...(fallback ? { [OURS.FALLBACK_SERVER]: fallback } : {}),
        ...(other ? { [OURS.RESULT]: other } : {}),
        ...(error ? { [SEMCONV.ERROR_TYPE]: error.reason, [OURS.OUTCOME]: error.outcome, [OURS.TRANSIENT]: error.transient } : {}),
      });
      if (error) this.markFailed(span, error);
      span.end();
    }
    if (metricsOn()) {
      instruments().callDuration.record((performance.now() - started) / 1000, {
        [SEMCONV.GEN_AI_TOOL_NAME]: context.toolName,
        ...(context.serverName ? { [OURS.SERVER_NAME]: context.serverName } : {}),
        [OURS.RESULT]: error ? "error" : (other ?? (fallback ? "fallback" : "ok")),
        ...(error ? { [SEMCONV.ERROR_TYPE]: error.reason } : {}),
      });
    }
  }

  /** ERROR status with the message the model would read (redacted), as the conventions ask. */
  private markFailed(span: Span, error: McpToolError): void {
    const safe = this.sources.redact ? this.sources.redact(error) : error;
    span.setStatus({ code: SpanStatusCode.ERROR, message: safe.message });
  }

  /** A call's progress, as an event on the span it happened in (the attempt's). */
  progress(event: ProgressEvent): void {
    if (!tracingOn()) return;
    trace.getActiveSpan()?.addEvent(EVENTS.PROGRESS, {
      [OURS.PROGRESS]: event.progress,
      ...(event.total !== undefined ? { [OURS.PROGRESS_TOTAL]: event.total } : {}),
    });
  }

  private onEvent(event: McpEvent): void {
    if (event.type === "circuit_open" || event.type === "half_open" || event.type === "circuit_close") {
      const state: CircuitState = event.type === "circuit_open" ? "open" : event.type === "half_open" ? "half-open" : "closed";
      this.circuits.set(event.serverName, state);
      if (metricsOn()) instruments().circuitState.record(CIRCUIT_VALUE[state], { [OURS.SERVER_NAME]: event.serverName });
      trace.getActiveSpan()?.addEvent(EVENTS.CIRCUIT, { [OURS.SERVER_NAME]: event.serverName, [OURS.CIRCUIT_STATE]: state });
      return;
    }
    if (!telemetryOn()) return;
    const span = trace.getActiveSpan();
    switch (event.type) {
      case "retry":
        if (metricsOn()) {
          instruments().retries.add(1, {
            [SEMCONV.GEN_AI_TOOL_NAME]: event.toolName,
            [SEMCONV.ERROR_TYPE]: event.error.reason,
            ...(event.serverName ? { [OURS.SERVER_NAME]: event.serverName } : {}),
          });
        }
        span?.addEvent(EVENTS.RETRY, { [OURS.ATTEMPT]: event.attempt, [OURS.RETRY_DELAY_MS]: Math.round(event.delayMs), [SEMCONV.ERROR_TYPE]: event.error.reason });
        return;
      case "reconnect":
        span?.addEvent(EVENTS.RECONNECT, { [OURS.SERVER_NAME]: event.serverName, [OURS.RECONNECT_COUNT]: event.attempt });
        return;
      case "fallback":
        span?.addEvent(EVENTS.FALLBACK, { [OURS.FALLBACK_SERVER]: event.fallback, [SEMCONV.ERROR_TYPE]: event.error.reason });
        return;
      case "hedge":
        span?.addEvent(EVENTS.HEDGE, { [OURS.ATTEMPT]: event.attempt, [OURS.HEDGE_OUTCOME]: event.outcome, ...(event.trigger ? { [OURS.HEDGE_TRIGGER]: event.trigger } : {}) });
        return;
      default:
        return;
    }
  }
}

/** What a failed attempt or call says about its failure, in the conventions' terms. */
function errorAttributes(error: McpToolError): Attributes {
  return {
    [SEMCONV.ERROR_TYPE]: error.reason,
    ...(error.kind === "protocol" && error.code !== undefined ? { [SEMCONV.RPC_RESPONSE_STATUS_CODE]: String(error.code) } : {}),
    ...(error.status !== undefined ? { [SEMCONV.HTTP_RESPONSE_STATUS_CODE]: error.status } : {}),
  };
}

/** A session id is unique per session: fine on a span, too many values for a metric. */
function withoutSession(attributes: Attributes): Attributes {
  const { [SEMCONV.MCP_SESSION_ID]: _session, ...rest } = attributes;
  return rest;
}
