/**
 * What the restart suite's servers executed, kept in a file so it survives a kill -9 and is
 * shared by every process a server kind goes through: one line per execution of a write, naming
 * the caller's unique id. The harness counts the lines per id ("ran at most once").
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";

/** Records one execution of `id` (synchronously, so a kill right after cannot lose it). */
export function recordExecution(file: string | undefined, id: string): void {
  if (file) appendFileSync(file, `${id}\n`);
}

/** Executions per id. */
export function readExecutions(file: string): Map<string, number> {
  const out = new Map<string, number>();
  if (!existsSync(file)) return out;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line) out.set(line, (out.get(line) ?? 0) + 1);
  }
  return out;
}
