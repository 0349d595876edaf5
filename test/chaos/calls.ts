/**
 * One chaos call as an agent makes it: the tool invoked with a tool call and a callback handler
 * counting LangChain's settle callbacks, and what the model got written into the call's record.
 */
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { ToolMessage } from "@langchain/core/messages";
import type { McpToolErrorJSON, McpToolkit } from "../../src/index.js";
import { expectedVerdict, expectedWriteRuns } from "../servers/chaos/plan.js";
import type { Deal } from "./deal.js";
import type { CallRecord } from "./report.js";
import { settleWithin } from "./support.js";

/** Everything the model reads from a ToolMessage, as one string. */
function contentText(message: ToolMessage): string {
  const c = message.content as unknown;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((b) => (typeof b === "string" ? b : typeof b?.text === "string" ? b.text : JSON.stringify(b))).join("\n");
  return JSON.stringify(c);
}

export class SettleCounter extends BaseCallbackHandler {
  name = "chaos-settle-counter";
  starts = 0;
  ends = 0;
  errors = 0;
  override handleToolStart(): void {
    this.starts++;
  }
  override handleToolEnd(): void {
    this.ends++;
  }
  override handleToolError(): void {
    this.errors++;
  }
}

/** A record for a call about to be made, with what the plan expects of it. */
export function newRecord(index: number, deal: Deal, retries: number, transientAttempts: number, budgetMs: number): CallRecord {
  const verdict = expectedVerdict(deal.fault, deal.tool === "read", retries, transientAttempts);
  return {
    index,
    ...deal,
    expected: verdict.reason,
    verdict,
    ...(deal.tool === "write" ? { expectedRuns: expectedWriteRuns(deal.fault, retries, transientAttempts) } : {}),
    actual: "unsettled",
    attempts: 0,
    elapsedMs: 0,
    budgetMs,
    content: "",
    starts: 0,
    ends: 0,
    errors: 0,
    executions: 0,
    arrivals: 0,
    serverCancelled: 0,
  };
}

/**
 * Calls `toolName` with the record's key and fills the record: "ok", or the artifact's reason,
 * outcome, status and attempts. A call that neither settles within `waitMs` nor returns a
 * ToolMessage is recorded as broken ("unsettled", "threw:…").
 */
export async function callInto(toolkit: McpToolkit, toolName: string, record: CallRecord, counter: SettleCounter, waitMs: number): Promise<void> {
  const t0 = performance.now();
  const call = toolkit.getTool(toolName)!.invoke({ type: "tool_call", id: record.key, name: toolName, args: { key: record.key } }, { callbacks: [counter] });
  const settled = await settleWithin(call, waitMs);
  record.elapsedMs = performance.now() - t0;
  if (settled.status === "timeout") return;
  if (settled.status === "rejected") {
    record.actual = `threw:${String((settled.reason as Error)?.message ?? settled.reason)}`;
    return;
  }
  const message = settled.value as ToolMessage;
  record.content = contentText(message);
  if (message.status === "success") {
    record.actual = "ok";
    return;
  }
  const artifact = message.artifact as McpToolErrorJSON | undefined;
  record.actual = artifact?.reason ?? "error-without-reason";
  record.attempts = artifact?.attempts ?? 0;
  if (artifact?.outcome !== undefined) record.outcome = artifact.outcome;
  if (artifact?.status !== undefined) record.status = artifact.status;
  if (artifact?.message !== undefined) record.artifactMessage = artifact.message;
}
