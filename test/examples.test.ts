/**
 * Every example in examples/ runs as its own process, as a user would run it, exits 0 by
 * itself (everything it opened is closed) and prints the line that proves its feature.
 */
import { execFile } from "node:child_process";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

// The examples run concurrently, but no more at once than there are cores: each loads
// LangChain, and five on two busy cores could push one past its 30 s limit.
let free = Math.max(2, availableParallelism());
const waiting: (() => void)[] = [];
async function limited<T>(task: () => Promise<T>): Promise<T> {
  if (free > 0) free--;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await task();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else free++;
  }
}

function run(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return limited(() => new Promise((resolve) => {
    execFile(process.execPath, ["--import", "tsx", file], { cwd: root, timeout: 150_000, env: { ...process.env, NO_COLOR: "1" } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr });
    });
  }));
}

const cases: [file: string, expected: (string | RegExp)[]][] = [
  [
    "examples/basic-agent.ts",
    [
      "tool message status: error",
      "the model read:      Error: Tool 'send_sms' failed (tool_error): quota exceeded",
      "classified as:       reason=tool_error kind=domain transient=false outcome=executed",
    ],
  ],
  [
    "examples/per-tool-policies.ts",
    [
      "shop/search: retries=3 timeoutMs=10000 idempotent=true",
      "warehouse/inventory: retries=1 timeoutMs=20000 idempotent=true",
      "↻ search: attempt 2 failed (service_unavailable); retrying in 100 ms",
      '→ 3 results for "mcp"',
      /↻ transfer: attempt 1 failed \(connection_(reset|closed)\); retrying/,
      "→ transferred",
      "(transfer ran 1 time on the server)",
      "this answer came from the fallback function.]",
      /inventory' failed \(connection_refused\) after 2 attempts/,
    ],
  ],
  [
    "examples/with-langchain-middleware.ts",
    [
      'search [success]: 3 results for "mcp"',
      "send_sms [error]: Error: Tool 'send_sms' failed (tool_error)",
      "cache_get [error]: Error: Tool 'cache_get' failed (connection_refused)",
    ],
  ],
  [
    "examples/wrap-existing-tools.ts",
    [
      "adapter tool:    threw ToolException",
      "wrapped isError: Error: Tool 'send_invoice' failed (tool_error)",
      "wrapped -32602:  Error: Tool 'get_invoice' failed (invalid_params): id must look like INV-1234",
      "↻ get_invoice retried after internal_error",
      "wrapped -32603:  INV-7: 120.00 EUR, paid",
    ],
  ],
  [
    "examples/langgraph-toolnode.ts",
    [
      "inventory [success]: MCP-1: 42 in stock",
      "send_sms [error]: Error: Tool 'send_sms' failed (tool_error)",
      "review node: 1 of 2 calls worked; failed: send_sms (tool_error).",
    ],
  ],
  [
    "examples/long-task.ts",
    ["  [task working] Gathering sources...", /\[task completed\]/, "result [success]: # Research Report: tidal energy"],
  ],
  [
    "examples/stream-progress.ts",
    // The last step's notification may arrive after the answer, which the SDK then drops.
    ["progress 1/4", "progress 2/4", "tool answered: Long running operation completed. Duration: 2 seconds, Steps: 4."],
  ],
  [
    "examples/langgraph-interrupt.ts",
    ['paused: billing asks "Refund order 7?" (refunds so far: 0)', "resumed: Refunded order 7. (refunds: 1)"],
  ],
  [
    "examples/chaos-eval.ts",
    [
      "calm: 20/20 answered from the tool; faults injected: none; retries: 0; errors the model read: none",
      "chaos: 17/20 answered from the tool; faults injected: http_503 5, is_error 3, reset_after 2; retries: 7; errors the model read: tool_error 3",
    ],
  ],
  [
    "examples/otel-trace.ts",
    [
      "execute_tool search: 2 attempts, tool call call_1, circuit closed",
      "• langchain_mcp.retry: retry after service_unavailable, waited 50 ms",
      /└ tools\/call search #1: service_unavailable \(HTTP 503\); tcp to 127\.0\.0\.1:\d+, MCP \d{4}-\d{2}-\d{2}/,
      /└ tools\/call search #2: ok; tcp to 127\.0\.0\.1:\d+/,
    ],
  ],
];

describe("examples", () => {
  it.concurrent.each(cases)("%s runs and exits 0", async (file, expected) => {
    const { code, stdout, stderr } = await run(file);
    expect(code, `exit code of ${file}; stdout:\n${stdout}\nstderr:\n${stderr}`).toBe(0);
    for (const line of expected) {
      if (typeof line === "string") expect(stdout).toContain(line);
      else expect(stdout).toMatch(line);
    }
    // Nine examples at once, each a tsx process with its servers: on a busy 2-core machine one
    // took 52 s. The limits bound a hang, not the machine's speed.
  }, 180_000);
});
