import {
  context as otelContext,
  metrics,
  propagation,
  trace,
  TraceFlags,
  type Context,
  type Counter,
  type Gauge,
  type Histogram,
  type Meter,
  type MeterProvider,
  type Tracer,
  type TracerProvider,
} from "@opentelemetry/api";
import { DURATION_BUCKETS, METRICS, SCOPE } from "./attributes.js";

/**
 * Where every copy of `@opentelemetry/api` 1.x keeps what the application registered. Reading
 * the slot is one property lookup, so a call can tell "no SDK" apart before doing any span work;
 * the API's own getters would hand back no-op objects that still cost an allocation or two.
 */
const GLOBAL = Symbol.for("opentelemetry.js.api.1");

interface Registered {
  trace?: unknown;
  metrics?: unknown;
}

function registered(): Registered | undefined {
  return (globalThis as Record<symbol, Registered | undefined>)[GLOBAL];
}

/** Has the application registered a tracer provider? */
export function tracingOn(): boolean {
  return registered()?.trace !== undefined;
}

/** Has the application registered a meter provider? */
export function metricsOn(): boolean {
  return registered()?.metrics !== undefined;
}

/** Is any OpenTelemetry provider registered? When not, telemetry does nothing at all. */
export function telemetryOn(): boolean {
  const g = registered();
  return g !== undefined && (g.trace !== undefined || g.metrics !== undefined);
}

let tracerFor: { provider: TracerProvider; tracer: Tracer } | undefined;

/** Our tracer, from the provider registered now (an application may register one later). */
export function tracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (tracerFor?.provider !== provider) tracerFor = { provider, tracer: provider.getTracer(SCOPE) };
  return tracerFor.tracer;
}

/** The instruments we record into. */
export interface Instruments {
  operationDuration: Histogram;
  callDuration: Histogram;
  retries: Counter;
  circuitState: Gauge;
}

let instrumentsFor: { provider: MeterProvider; instruments: Instruments } | undefined;

/**
 * Our instruments, made once per registered meter provider: a meter taken before the
 * application registered its provider would stay a no-op forever (the metrics API has no proxy).
 */
export function instruments(): Instruments {
  const provider = metrics.getMeterProvider();
  if (instrumentsFor?.provider !== provider) instrumentsFor = { provider, instruments: makeInstruments(provider.getMeter(SCOPE)) };
  return instrumentsFor.instruments;
}

function makeInstruments(meter: Meter): Instruments {
  const advice = { explicitBucketBoundaries: DURATION_BUCKETS };
  return {
    operationDuration: meter.createHistogram(METRICS.OPERATION_DURATION, {
      unit: "s",
      description: "The duration of the MCP request as observed on the sender from the time it was sent until the response is received.",
      advice,
    }),
    callDuration: meter.createHistogram(METRICS.CALL_DURATION, {
      unit: "s",
      description: "The duration of a whole tool call, its retries, waits and fallback included.",
      advice,
    }),
    retries: meter.createCounter(METRICS.RETRIES, { unit: "{retry}", description: "Retries of failed tool-call attempts." }),
    circuitState: meter.createGauge(METRICS.CIRCUIT_STATE, { unit: "1", description: "A server's circuit: 0 closed, 1 half-open, 2 open." }),
  };
}

/**
 * The trace context of `ctx` as `_meta` entries. The application's propagator writes them
 * (W3C trace context and baggage, or whatever it configured); when it has none, the W3C
 * `traceparent` and `tracestate` are written here, since SEP-414 names exactly those keys.
 */
export function traceMeta(ctx: Context): Record<string, string> | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  if (carrier.traceparent !== undefined) return carrier;
  const span = trace.getSpan(ctx)?.spanContext();
  if (!span || !trace.isSpanContextValid(span)) return Object.keys(carrier).length > 0 ? carrier : undefined;
  const flags = (span.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED ? "01" : "00";
  carrier.traceparent = `00-${span.traceId}-${span.spanId}-${flags}`;
  const state = span.traceState?.serialize();
  if (state) carrier.tracestate = state;
  return carrier;
}

export { otelContext };
