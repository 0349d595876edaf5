/**
 * Fault injection for users (`chaos`): real failure shapes, injected at the transport at a chosen
 * rate, so an agent can be evaluated against failing tools before production. Set on the
 * toolkit, a server or a `tools` key; the nearest layer wins, and `false` turns it off there.
 */
import { z } from "zod";
import { expected, flag, number, oneOf, options } from "./fields.js";

/**
 * The failure shapes, each one the classifier knows from the real thing:
 * - `http_503`: the HTTP POST is answered 503 with `Retry-After` (`retryAfterS`), as a gateway
 *   whose upstream is down answers; the server never sees the request. HTTP servers only.
 * - `reset_before`: the connection is reset before any answer, the request unread. HTTP only.
 * - `reset_after`: the server runs the call and the connection is reset mid-answer: the outcome is
 *   unknown. Streamable HTTP only.
 * - `timeout`: the request is written nowhere and no answer comes; the attempt's timeout ends it.
 * - `is_error`: the tool answers `isError: true`, without running.
 * - `slow`: the request waits `delayMs` before it goes, then runs as usual.
 */
export const CHAOS_FAULTS = ["http_503", "reset_before", "reset_after", "timeout", "is_error", "slow"] as const;
export type ChaosFaultKind = (typeof CHAOS_FAULTS)[number];

/** The faults that need an HTTP request to happen in (the rest are injected on any transport we open). */
export const HTTP_FAULTS: readonly ChaosFaultKind[] = ["http_503", "reset_before", "reset_after"];

const faultKind = oneOf(CHAOS_FAULTS);

const ChaosFaultSchema = z.union(
  [
    faultKind,
    options({
      kind: faultKind,
      /** How often this fault is chosen, against the others' weights. @default 1 */
      weight: number({ min: 0 }).optional(),
      /** `slow`: the wait before the request goes, in milliseconds. @default 2000 */
      delayMs: number().optional(),
      /** `http_503`: the `Retry-After` the answer carries, in seconds. @default 1 */
      retryAfterS: number({ integer: true }).optional(),
    }),
  ],
);
export type ChaosFault = z.input<typeof ChaosFaultSchema>;

export const ChaosOptionsSchema = options({
  /** The share of attempts that meet a fault, from 0 to 1. */
  rate: number({ max: 1 }),
  /**
   * The faults to choose from, by weight. Unset, every fault the server's transport can carry
   * (over stdio: `timeout`, `is_error` and `slow`).
   */
  faults: z.array(ChaosFaultSchema, { error: expected("an array of faults") }).min(1, { error: "expected at least one fault" }).optional(),
  /** Inject even when `NODE_ENV` is `production` (refused there otherwise). @default false */
  force: flag().default(false),
  /** Seeds the choice, so a run meets the same faults in the same order. Unset, `Math.random`. */
  seed: number({ integer: true }).optional(),
});
export interface ChaosOptions extends z.input<typeof ChaosOptionsSchema> {}

/** A layer's `chaos`: its options, or `false` to turn off what a layer below set. */
export const ChaosSettingSchema = z.union([z.literal(false, { error: expected("false or an object") }), ChaosOptionsSchema]);
export type ChaosSetting = false | ChaosOptions;

/** Where `NODE_ENV` is read (a runtime without `process` is no production Node). */
function inProduction(): boolean {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.NODE_ENV === "production";
}

interface ChaosIssue {
  path: (string | number)[];
  message: string;
}

/**
 * What the configuration's `chaos` layers may not do: run under `NODE_ENV=production` without
 * `force`, or ask a server's own transport for a fault it cannot carry.
 */
export function chaosIssues(
  toolkit: ChaosSetting | undefined,
  servers: Record<string, { chaos?: ChaosSetting | undefined; transport?: string; client?: unknown }>,
  tools: Record<string, { chaos?: ChaosSetting | undefined }> | undefined,
): ChaosIssue[] {
  const issues: ChaosIssue[] = [];
  const layers: [(string | number)[], ChaosSetting | undefined][] = [
    [["chaos"], toolkit],
    ...Object.entries(servers).map(([name, s]): [(string | number)[], ChaosSetting | undefined] => [["servers", name, "chaos"], s.chaos]),
    ...Object.entries(tools ?? {}).map(([key, t]): [(string | number)[], ChaosSetting | undefined] => [["tools", key, "chaos"], t.chaos]),
  ];
  for (const [path, layer] of layers) {
    if (layer && !layer.force && inProduction()) issues.push({ path: [...path, "force"], message: "fault injection is refused when NODE_ENV is production; set force: true to inject faults there" });
  }
  for (const [name, server] of Object.entries(servers)) {
    const chaos = server.chaos;
    if (!chaos) continue;
    const path = ["servers", name, "chaos"];
    if (server.client !== undefined) {
      issues.push({ path, message: "faults are injected in a transport the toolkit opens, and a client you connected runs over your own" });
      continue;
    }
    if (server.transport !== "stdio" && server.transport !== "sse") continue;
    (chaos.faults ?? []).forEach((fault, i) => {
      const kind = typeof fault === "string" ? fault : fault.kind;
      const refused = server.transport === "stdio" ? HTTP_FAULTS.includes(kind) : kind === "reset_after";
      if (refused) issues.push({ path: [...path, "faults", i], message: `"${kind}" needs ${kind === "reset_after" ? "a streamable HTTP" : "an HTTP"} server, and this one runs over ${server.transport}` });
    });
  }
  return issues;
}
