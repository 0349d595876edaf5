/**
 * The OpenTelemetry SDK as an application registers it, with in-memory exporters, for tests:
 * a tracer provider, the async-hooks context manager, the W3C propagator and a meter provider
 * whose metrics a test collects on demand.
 */
import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { MeterProvider, MetricReader, type DataPoint, type Histogram } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";

class OnDemandReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export interface TestSdk {
  spans(): ReadableSpan[];
  /** Every data point of a metric, by name. */
  points(name: string): Promise<DataPoint<number | Histogram>[]>;
  reset(): void;
  shutdown(): Promise<void>;
}

export function registerSdk(): TestSdk {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new OnDemandReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    spans: () => exporter.getFinishedSpans(),
    points: async (name) => {
      const { resourceMetrics } = await reader.collect();
      const metric = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
      return (metric?.dataPoints ?? []) as DataPoint<number | Histogram>[];
    },
    reset: () => exporter.reset(),
    shutdown: async () => {
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}
