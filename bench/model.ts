/** What each section hands the report: a table, the ratios for the chart, and goals. */

export interface Ratio {
  /** Short label for the chart, e.g. "memory args: ours/raw". */
  label: string;
  value: number;
  /** The goal's upper bound, when the ratio has one. */
  goalMax?: number;
  /** The goal's lower bound, for ratios where higher is better (throughput). */
  goalMin?: number;
}

export interface Goal {
  /** A goal says what the library is for; a guard bounds what it costs (bench/goals.ts). @default "goal" */
  kind?: "goal" | "guard";
  goal: string;
  figure: string;
  pass: boolean;
}

export interface Table {
  headers: string[];
  rows: string[][];
}

export interface SectionResult {
  title: string;
  /** One paragraph: what was measured and how. */
  method: string;
  tables: Table[];
  ratios: Ratio[];
  goals: Goal[];
  notes: string[];
  /** Tables the README's Benchmarks section shows too, before the goals (the "Under faults" table). */
  readme?: { title: string; table: Table }[];
}

export const fmt = (n: number, digits = 1): string =>
  !Number.isFinite(n) ? "—" : Math.abs(n) >= 1000 ? Math.round(n).toLocaleString("en-US") : n.toFixed(digits);

/** What a section that threw leaves in the report: the error, and a missed goal so the table cannot look complete. */
export function failedSection(name: string, error: unknown): SectionResult {
  const message = error instanceof Error ? error.message : String(error);
  return {
    title: `Section "${name}" failed`,
    method: `It threw before finishing: \`${message.slice(0, 500)}\``,
    tables: [],
    ratios: [],
    goals: [{ goal: `section "${name}" ran to the end`, figure: message.slice(0, 120), pass: false }],
    notes: [],
  };
}
