/**
 * What an attempt is, as the files that handle it see it: its target, the call it belongs to,
 * and what it learnt on its way. Kept apart from callTool.ts, which makes attempts, so that
 * attemptFailure.ts and callOptions.ts can read one without importing the file that calls them.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { CustomCodeTable } from "../../errors/normalize.js";
import type { ChaosPlan, InjectedFault } from "../../policy/chaos.js";
import type { CallContext } from "../../policy/abort.js";
import type { AttemptScope } from "../../policy/TimeoutPolicy.js";
import type { Progress } from "../session/clients.js";
import type { Connection, Lease } from "../session/Connection.js";
import type { TaskCall } from "../tasks/taskCall.js";
import type { CallContract } from "./CallContract.js";

/** What one attempt calls: a tool on a server, reached through its connection at call time. */
export interface ToolTarget {
  connection: Connection;
  /** The tool's name on its server. */
  mcpName: string;
  customCodes?: CustomCodeTable;
  /** How long the SDK's own timer may run: a backstop far behind ours. */
  sdkTimeoutMs: number;
  resetTimeoutOnProgress: boolean;
  /** The MCP method, for a request that is not a tools/call (`prompts/get`): its errors are read knowing it. */
  method?: string;
  /** The tool's `chaos`: each attempt rolls for a fault as it is sent. */
  chaos?: ChaosPlan;
}

/**
 * Asked after an attempt failed: may settle the attempt another way, by sending the call once
 * more through the call's own send path (its hooks included), where a fact makes that safe.
 */
export interface AttemptRecovery {
  /** Does this failure call for it? Asked first, so most failures pass by without a step of its own. */
  handles(error: unknown): boolean;
  retry(error: unknown, scope: AttemptScope): Promise<CallToolResult>;
}

/** The call an attempt is one of, as the attempt sees it: its task, its recovery, and who hears its answers. */
export type CallOfAttempt = TaskCall &
  AttemptRecovery & {
    /** Sees every answer the server gave (an `isError` one included) before it is judged; may give another. */
    afterAnswer?: (result: CallToolResult) => Promise<CallToolResult>;
    /** What the call promised at its start: every send reads its key and its deadline from here. */
    readonly contract?: CallContract;
  };

/** What one attempt learnt on its way, read when it fails to classify the failure. */
export interface AttemptFacts {
  target: ToolTarget;
  args: Record<string, unknown>;
  scope: AttemptScope;
  attempt: number;
  context: CallContext;
  callerSignal: AbortSignal | undefined;
  meta: Record<string, string> | undefined;
  task: TaskCall | undefined;
  recovery: AttemptRecovery | undefined;
  /** HTTP headers for this attempt's requests alone (a `beforeToolCall`'s). */
  headers: Record<string, string> | undefined;
  /** Hears the attempt's progress notifications, where someone listens. */
  progress: ((progress: Progress) => void) | undefined;
  /** The connection the request went over; unset while none was had. */
  lease?: Lease;
  /** The JSON-RPC id of the request, where it was seen being written. */
  id?: number;
  /** The server's log mark when the attempt began (`ServerLogs.mark`): its warnings since then go into its error's data. */
  logMark: number;
  /** Had the attempt been aborted before it was sent? Then the SDK refuses it unsent. */
  abortedBeforeSend: boolean;
  /** The fault `chaos` injected into this attempt, named in its error's `data.chaos`. */
  chaos?: InjectedFault;
}

/** An attempt as its send sees it: it learns the ids of the requests it writes, and who hears their progress. */
export interface SendingAttempt extends AttemptFacts {
  /** The attempt's client wrote a request for it, under `id`. */
  sent(id: number): void;
  /** Hears the progress of the attempt's requests, where its client's record reports it. */
  onprogress?: (progress: unknown) => void;
}
