/**
 * Interleaved sampling: every round runs each subject for one batch, in an order that
 * rotates per round, so a noisy moment of the machine lands on every subject alike.
 */

/** The value below which `q` (0..1) of the sorted samples lie, linearly interpolated. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export const median = (samples: readonly number[]): number => quantile(samples, 0.5);

/**
 * `a` over `b` round by round (the two ran back to back in each round), then the median over
 * rounds. The machine's speed drifts over seconds; a ratio of the two subjects' medians can
 * pair a slow moment of one with a fast moment of the other, a paired ratio does not.
 */
export function pairedRatio(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new Error(`pairedRatio: ${a.length} rounds against ${b.length}`);
  return median(a.map((x, i) => x / b[i]!));
}

/** One thing to time: `call` runs once per sample; `check` validates a result once per batch. */
export interface Subject {
  name: string;
  call: (i: number) => Promise<unknown>;
  /** Throws when the subject did not do what it is meant to (a silent failure must not look fast). */
  check?: (result: unknown) => void;
  /** The inner window of the last call, in µs, when the subject has one (a tool inside a graph step). */
  window?: () => number;
}

/**
 * What one subject's calls took, in µs: each call, and per batch (one per round, in round
 * order, so two subjects' batches of one round can be paired) the median call and the
 * batch's wall time over its size (GC included).
 */
export interface Samples {
  calls: number[];
  batchMedians: number[];
  batchMeans: number[];
  /** The same for the inner window, when the subject has one. */
  windows: number[];
  windowMedians: number[];
  windowMeans: number[];
  /** Each batch's CPU time (this process, every thread) over its size. */
  cpuMeans: number[];
}

export interface InterleaveOptions {
  rounds: number;
  /** Calls per subject per round. */
  batch: number;
  /** Rounds run first and discarded, for the JIT. @default 1 */
  warmupRounds?: number;
}

/** Rotates `items` left by `by`, so each round starts with a different subject. */
export function rotate<T>(items: readonly T[], by: number): T[] {
  const k = ((by % items.length) + items.length) % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

/**
 * Times every call of every subject, interleaved in rounds. No GC is forced: collections come
 * as they do in a running agent, young ones on whichever batch allocates, the rotation
 * spreading the rest. A full GC forced before a batch slowed the batch's subject, and
 * unequally (measured in one process, 100 LangGraph steps after a forced GC against 100
 * after none: ours' CPU per step +14 to +44%, the adapters' +10 to +25%, the floor's +1 to
 * +12%), so the subject that followed it paid for the bench's own GC. Why (--trace-opt,
 * --trace-deopt): a forced GC does not retain maps as V8's own collections do, so optimized
 * code that embeds the map of a short-lived object is thrown away ("weak objects": LangGraph's
 * streams, AsyncLocalStorage's hooks, LangSmith's RunTree, AbortController, a few of ours),
 * and 35 to 90 functions are optimized again over the next 100 steps. Natural major GCs in
 * the same run threw away almost none, unless run with --retain-maps-for-n-gc=0.
 */
export async function interleave(subjects: readonly Subject[], options: InterleaveOptions): Promise<Map<string, Samples>> {
  const out = new Map<string, Samples>(
    subjects.map((s) => [s.name, { calls: [], batchMedians: [], batchMeans: [], windows: [], windowMedians: [], windowMeans: [], cpuMeans: [] }]),
  );
  const warmup = options.warmupRounds ?? 1;
  let counter = 0;
  for (let round = 0; round < warmup + options.rounds; round++) {
    for (const subject of rotate(subjects, round)) {
      const keep = round >= warmup ? out.get(subject.name)! : undefined;
      let windowSum = 0;
      const calls: number[] = [];
      const windows: number[] = [];
      const cpu = process.cpuUsage();
      const start = performance.now();
      for (let i = 0; i < options.batch; i++) {
        const t0 = performance.now();
        const result = await subject.call(counter++);
        const t1 = performance.now();
        calls.push((t1 - t0) * 1000);
        if (subject.window) {
          const w = subject.window();
          windowSum += w;
          windows.push(w);
        }
        if (i === 0) subject.check?.(result);
      }
      if (!keep) continue;
      // Read before the batch's own figures are worked out, so the bench's sorting is not in them.
      const wallUs = (performance.now() - start) * 1000;
      const used = process.cpuUsage(cpu);
      keep.calls.push(...calls);
      keep.batchMedians.push(median(calls));
      keep.batchMeans.push(wallUs / options.batch);
      keep.cpuMeans.push((used.user + used.system) / options.batch);
      if (subject.window) {
        keep.windows.push(...windows);
        keep.windowMedians.push(median(windows));
        keep.windowMeans.push(windowSum / options.batch);
      }
    }
  }
  return out;
}

/** Per-call median and p99, and the median over batches of the batch mean, in µs. */
export interface Summary {
  n: number;
  medianUs: number;
  p99Us: number;
  meanUs: number;
}

export function summarize(calls: readonly number[], batchMeans: readonly number[]): Summary {
  return { n: calls.length, medianUs: median(calls), p99Us: quantile(calls, 0.99), meanUs: median(batchMeans) };
}

/** Latency of one subject from per-call samples alone (no batches). */
export function latencyStats(samplesUs: readonly number[]): Omit<Summary, "meanUs"> {
  return { n: samplesUs.length, medianUs: median(samplesUs), p99Us: quantile(samplesUs, 0.99) };
}

/** Runs `fn` until it resolves truthy or `deadlineMs` passes, pausing `everyMs` between tries. */
export async function pollUntil(fn: () => Promise<boolean>, deadlineMs: number, everyMs = 5): Promise<number | undefined> {
  const t0 = performance.now();
  while (performance.now() - t0 < deadlineMs) {
    if (await fn()) return performance.now() - t0;
    await delay(everyMs);
  }
  return undefined;
}

export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Forced full collections (three settle finalizers, so heap readings compare live objects only). */
export function collect(times = 3): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("Run with --expose-gc (bench/run.ts re-spawns itself with it).");
  for (let i = 0; i < times; i++) gc();
}
