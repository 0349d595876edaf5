/** What each section hands the report: a table, the ratios for the chart, and goals. */

export interface Ratio {
  /** Short label for the chart, e.g. "memory args: ours/raw". */
  label: string;
  value: number;
  /** The goal's upper bound, when the ratio has one. */
  goalMax?: number;
}

export interface Goal {
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
}

export const fmt = (n: number, digits = 1): string =>
  !Number.isFinite(n) ? "—" : Math.abs(n) >= 1000 ? Math.round(n).toLocaleString("en-US") : n.toFixed(digits);

export const ratio = (a: number, b: number): number => a / b;
