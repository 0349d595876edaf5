/**
 * What the era matrix tests share: an exact check of a classified error that also records which
 * era produced the reason, a connection shared by a describe block, and the closing test that
 * every reason was produced in each era it belongs to.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { McpToolErrorJSON, Reason } from "../../src/index.js";
import type { ProtocolEra } from "../../src/mcp/session/clients.js";
import type { Expected } from "../errors/helpers.js";
import { open, SERVER, type Opened, type OpenOptions, type Target } from "./targets.js";

/** A slow call's own length: a failure that settles well under it settled without waiting for it. */
export const SLOW_MS = 30_000;
/** Generous for a loaded machine, and far below SLOW_MS and the 30 s default timeout. */
export const QUICK_MS = 10_000;

/** Which eras produced each reason in this file. */
const produced = new Map<Reason, Set<ProtocolEra>>();

/** Asserts the artifact's classification exactly (code, status and retryAfterMs absent unless given) and records the era. */
export function expectError(target: Target, error: McpToolErrorJSON | undefined, want: Expected): McpToolErrorJSON {
  expect(error, "the call should have failed").toBeDefined();
  const { reason, kind, transient, outcome, code, status, retryAfterMs } = error!;
  expect({ reason, kind, transient, outcome, code, status, retryAfterMs }).toEqual({ code: undefined, status: undefined, retryAfterMs: undefined, ...want });
  expect(error!.serverName).toBe(SERVER);
  const eras = produced.get(want.reason) ?? new Set<ProtocolEra>();
  eras.add(target.era);
  produced.set(want.reason, eras);
  return error!;
}

/**
 * A connection shared by the tests of one describe block that leave nothing behind (no crash, no
 * close, no open circuit): opened by the first test that asks, closed after the block.
 */
export function shared(target: Target, options: OpenOptions = {}): () => Promise<Opened> {
  const closers: Array<() => unknown> = [];
  let opened: Promise<Opened> | undefined;
  afterAll(async () => {
    while (closers.length > 0) await Promise.resolve(closers.pop()!()).catch(() => undefined);
  });
  return () => (opened ??= open(target, (close) => void closers.push(close), options));
}

/**
 * The file's last test: each reason in `both` was produced by a 2026-07-28 server and by a 2025
 * one, each in `legacyOnly` by 2025 servers alone. Run the whole file: a filtered run leaves it wanting.
 */
export function expectMatrix(both: Reason[], legacyOnly: Reason[] = []): void {
  describe("the matrix", () => {
    it(`every reason here both eras can produce came from a 2026-07-28 server and a 2025 one${legacyOnly.length ? `; ${legacyOnly.join(", ")} from 2025 servers only` : ""}`, () => {
      const eras = (reason: Reason) => [...(produced.get(reason) ?? [])].sort();
      expect(both.filter((reason) => eras(reason).length !== 2).map((reason) => `${reason}: ${eras(reason).join(", ") || "none"}`)).toEqual([]);
      for (const reason of legacyOnly) expect(eras(reason), reason).toEqual(["legacy"]);
    });
  });
}
