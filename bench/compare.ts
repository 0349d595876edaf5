/**
 * Side-by-side measurement shared by the success and error sections: interleave the
 * subjects, summarise each, and lay the figures and ratios out as table rows.
 */
import { fmt } from "./model.js";
import { interleave, median, pairedRatio, summarize, type InterleaveOptions, type Subject, type Summary } from "./stats.js";

/** One subject's figures: the tool's own time (the window inside a graph step, the call when bare), and the whole call. */
export interface Measured {
  tool: Summary;
  call: Summary;
  /**
   * CPU time per call (median over batches): this process's, every thread, so for a graph step
   * the graph's own work and, in memory, the server's are in it too.
   */
  cpuUs: number;
  /** Per round, in round order: the tool's median and batch mean, and the CPU per call. */
  rounds: { medians: number[]; means: number[]; cpu: number[] };
  /** Per round, the whole call's (for a graph step: the step's) median and batch mean. */
  stepRounds: { medians: number[]; means: number[] };
}

export async function measure(subjects: readonly Subject[], options: InterleaveOptions): Promise<Map<string, Measured>> {
  const samples = await interleave(subjects, options);
  const out = new Map<string, Measured>();
  for (const s of subjects) {
    const got = samples.get(s.name)!;
    const call = summarize(got.calls, got.batchMeans);
    const rounds = s.window ? { medians: got.windowMedians, means: got.windowMeans } : { medians: got.batchMedians, means: got.batchMeans };
    out.set(s.name, {
      call,
      tool: s.window ? summarize(got.windows, got.windowMeans) : call,
      cpuUs: median(got.cpuMeans),
      rounds: { ...rounds, cpu: got.cpuMeans },
      stepRounds: { medians: got.batchMedians, means: got.batchMeans },
    });
  }
  return out;
}

export const TIME_HEADERS = ["median µs", "batch mean µs", "p99 µs"];
export const STEP_HEADERS = ["tool median µs", "tool batch mean µs", "tool p99 µs", "step median µs", "step batch mean µs", "step CPU µs"];

/** The figures of one subject: its tool times, and for a graph step the whole step too. */
export function timeCells(m: Measured, withStep: boolean): string[] {
  const cells = [fmt(m.tool.medianUs), fmt(m.tool.meanUs), fmt(m.tool.p99Us)];
  return withStep ? [...cells, fmt(m.call.medianUs), fmt(m.call.meanUs), fmt(m.cpuUs)] : cells;
}

/**
 * `a` over `b`. Paired (the goals' figures): round by round, the tool's batch median over the
 * other's in the same round, and the batch means likewise, then the median over rounds (see
 * `pairedRatio`). Beside them, unpaired: the medians of every call of the tool, and of the
 * whole step. The CPU per call (for a graph step: per step) is paired too.
 */
export interface Versus {
  median: number;
  mean: number;
  medianOfAll: number;
  stepMedian: number;
  /** The whole step (the whole call when bare), paired like `median` and `mean`. */
  step: number;
  stepMean: number;
  cpu: number;
}

export function versus(a: Measured, b: Measured): Versus {
  return {
    median: pairedRatio(a.rounds.medians, b.rounds.medians),
    mean: pairedRatio(a.rounds.means, b.rounds.means),
    medianOfAll: a.tool.medianUs / b.tool.medianUs,
    stepMedian: a.call.medianUs / b.call.medianUs,
    step: pairedRatio(a.stepRounds.medians, b.stepRounds.medians),
    stepMean: pairedRatio(a.stepRounds.means, b.stepRounds.means),
    cpu: pairedRatio(a.rounds.cpu, b.rounds.cpu),
  };
}

export const VERSUS_HEADERS = ["median (paired)", "batch mean (paired)", "median of all calls", "whole step: median (paired)", "whole step: batch mean (paired)", "CPU per call or step (paired)"];

export function versusCells(v: Versus, withStep: boolean): string[] {
  return [fmt(v.median, 2), fmt(v.mean, 2), fmt(v.medianOfAll, 2), withStep ? fmt(v.step, 2) : "", withStep ? fmt(v.stepMean, 2) : "", fmt(v.cpu, 2)];
}
