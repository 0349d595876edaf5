/** Terminal output for the demo: colour on a TTY, plain text otherwise. */
import type { McpEvent } from "../src/index.js";

const tty = process.stdout.isTTY === true && !process.env.NO_COLOR;
const paint = (code: number) => (text: string) => (tty ? `\u001b[${code}m${text}\u001b[0m` : text);
export const bold = paint(1);
export const dim = paint(2);
export const red = paint(31);
export const green = paint(32);
export const yellow = paint(33);
export const cyan = paint(36);

export function header(step: number, toolName: string, args: unknown): string {
  return `\n${bold(`[${step}] The model calls ${cyan(toolName)}`)} ${dim(JSON.stringify(args))}`;
}

/** One line per event, in the words a developer would use. */
export function describeEvent(e: McpEvent): string | undefined {
  const error = "error" in e ? e.error : undefined;
  const why = error ? `${error.reason}${error.status ? ` (HTTP ${error.status})` : ""}` : "";
  switch (e.type) {
    case "retry": {
      // A write that carries an idempotency key is repeated under the same key: the server runs it once.
      const key = (e.error.data as { idempotencyKey?: unknown } | undefined)?.idempotencyKey;
      const keyed = typeof key === "string" ? ` (outcome ${e.error.outcome}), repeated under its idempotency key ${key.slice(0, 8)}…` : "";
      return yellow(`    attempt ${e.attempt} failed: ${why}${keyed}; retrying in ${e.delayMs} ms`);
    }
    case "error":
      return red(`    gave up after ${e.attempt ?? 1} attempt${(e.attempt ?? 1) > 1 ? "s" : ""}: ${why}, outcome ${e.error.outcome}`);
    case "fallback":
      return green(`    fallback: '${e.fallback}' answered for '${e.serverName}' (${why})`);
    case "circuit_open":
      return red(`    circuit OPEN for server '${e.serverName}': calls now fail fast (${why})`);
    case "half_open":
      return yellow(`    circuit half-open for server '${e.serverName}': one call tests it`);
    case "circuit_close":
      return green(`    circuit closed for server '${e.serverName}'`);
    case "reconnect":
      return yellow(`    reconnected to server '${e.serverName}'`);
    default:
      return undefined;
  }
}

export function modelRead(text: string, ok: boolean): string {
  const lines = text.split("\n").map((l) => `    │ ${l}`);
  return `  ${ok ? green("✓ the model read:") : red("✗ the model read:")}\n${lines.join("\n")}`;
}

export function table(rows: [string, string | number][]): string {
  const width = Math.max(...rows.map(([k]) => k.length));
  const line = `  ${"─".repeat(width + 10)}`;
  return [line, ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${String(v).padStart(6)}`), line].join("\n");
}
