import type { BenchPlan } from "./options.js";
import type { Ours } from "./ours.js";

/** What every section gets: how long to run, our library as loaded, and where to register closing. */
export interface BenchContext {
  plan: BenchPlan;
  ours: Ours;
  /** The file `ours` was loaded from, for a section that measures in a child process. */
  oursPath: string;
  /** Registers something to close after the section (last registered, first closed). */
  cleanup: (fn: () => Promise<void>) => void;
}
