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

/** Latency of one subject: per-call samples in microseconds. */
export interface LatencyStats {
  n: number;
  medianUs: number;
  p99Us: number;
}

export function latencyStats(samplesUs: readonly number[]): LatencyStats {
  return { n: samplesUs.length, medianUs: median(samplesUs), p99Us: quantile(samplesUs, 0.99) };
}

/** One thing to time: `call` runs once per sample; `check` validates a result once per round. */
export interface Subject {
  name: string;
  call: (i: number) => Promise<unknown>;
  /** Throws when the subject did not do what it is meant to (a silent failure must not look fast). */
  check?: (result: unknown) => void;
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
 * Times every call of every subject, interleaved in rounds. Returns per-subject samples
 * in microseconds.
 */
export async function interleave(subjects: readonly Subject[], options: InterleaveOptions): Promise<Map<string, number[]>> {
  const samples = new Map<string, number[]>(subjects.map((s) => [s.name, []]));
  const warmup = options.warmupRounds ?? 1;
  let counter = 0;
  for (let round = 0; round < warmup + options.rounds; round++) {
    for (const subject of rotate(subjects, round)) {
      const out = round >= warmup ? samples.get(subject.name)! : undefined;
      for (let i = 0; i < options.batch; i++) {
        const t0 = performance.now();
        const result = await subject.call(counter++);
        const t1 = performance.now();
        out?.push((t1 - t0) * 1000);
        if (i === 0) subject.check?.(result);
      }
    }
  }
  return samples;
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

/** Forced full collections, so heap readings compare live objects only. */
export function collect(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("Run with --expose-gc (bench/run.ts re-spawns itself with it).");
  for (let i = 0; i < 3; i++) gc();
}
