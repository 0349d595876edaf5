/**
 * The invariants of the network faults: Retry-After honoured, error pages read as text, and the
 * keep-alive race invisible to the writes that meet it.
 */
import { FAULT_INFO } from "../servers/chaos/plan.js";
import { PAGE_TITLES, RETRY_AFTER_MS } from "../servers/chaos/proxy.js";
import type { CallRecord, RunProbes } from "./report.js";

// An opening or closing tag, a doctype or a comment: markup the model must never read.
const MARKUP = /<\/?[a-z!][^>]*>/i;

/** An invariant holds when nothing is `bad`; `okDetail` says what held. */
export type Check = (name: string, bad: string[], okDetail: string) => void;

export function checkNetworkInvariants(records: CallRecord[], probes: RunProbes, describe: (r: CallRecord) => string, check: Check): void {

  const dealtWaits = records.filter((r) => r.fault === "retry_after_seconds" || r.fault === "retry_after_date");
  if (dealtWaits.length > 0) {
    const short = probes.retryWaits.filter((w) => w.waited < w.asked);
    // A wait in seconds is exact, so the call took at least that long (a lower bound, safe on a slow machine).
    const quick = records.filter((r) => r.fault === "retry_after_seconds" && r.elapsedMs < RETRY_AFTER_MS);
    const seconds = probes.retryWaits.filter((w) => w.asked === RETRY_AFTER_MS).length;
    const dealtSeconds = dealtWaits.filter((r) => r.fault === "retry_after_seconds").length;
    check(
      "a Retry-After (in seconds or as an HTTP date) is waited out before the retry",
      [
        ...short.map((w) => `a retry after ${w.reason} waited ${w.waited} ms of the ${w.asked} ms asked`),
        ...quick.map((r) => `${describe(r)} took ${Math.round(r.elapsedMs)} ms, less than its Retry-After`),
        // (A date has whole seconds, so what it asks may have run out on arrival: not counted.)
        ...(seconds < dealtSeconds ? [`${seconds} retries carried a ${RETRY_AFTER_MS / 1000} s wait, ${dealtSeconds} calls were dealt one`] : []),
      ],
      `${probes.retryWaits.length} retries after a Retry-After (${seconds} of ${RETRY_AFTER_MS / 1000} s exactly), each waited at least what was asked`,
    );
  }

  const pages = records.filter((r) => r.actual !== "ok" && PAGE_TITLES[r.fault] !== undefined);
  check(
    "an error page reaches the model as its title, without markup",
    pages.flatMap((r) => [
      ...(MARKUP.test(r.content) ? [`${describe(r)} model text has markup: ${r.content.slice(0, 80)}`] : []),
      ...(!r.content.includes(PAGE_TITLES[r.fault]!) ? [`${describe(r)} model text lacks the title '${PAGE_TITLES[r.fault]}'`] : []),
    ]),
    `${pages.length} failures carrying a page, all as text with the page's title`,
  );

  const race = records.filter((r) => r.fault === "keepalive_race");
  if (probes.race) {
    const { dropped, idleMs } = probes.race;
    check(
      "no spurious failure of a write in the keep-alive race, and none ran twice",
      [
        ...race.filter((r) => r.actual !== "ok" || r.executions !== 1).map((r) => `${describe(r)} got ${r.actual} (outcome ${r.outcome}), ran ${r.executions}×`),
        // Without a drop the race was never met, and the check proved nothing.
        ...(dropped === 0 && race.length > 0 ? ["the proxy dropped nothing: no call met a connection it had closed"] : []),
      ],
      `${race.filter((r) => r.actual === "ok").length}/${race.length} spaced writes succeeded, each ran once; the proxy (idle limit ${idleMs} ms) dropped ${dropped} request(s) that met a connection it had closed`,
    );
  }

  const proxied = records.filter((r) => FAULT_INFO[r.fault].by === "proxy");
  const forwarded = proxied.filter((r) => FAULT_INFO[r.fault].executes && r.tool === "write");
  check(
    "a proxy failure after forwarding is never taken for 'not sent'",
    forwarded.filter((r) => r.actual !== "ok" && r.outcome === "not_sent").map((r) => `${describe(r)} came back not_sent`),
    `${forwarded.length} writes behind a proxy that failed after forwarding, none reported not_sent`,
  );
}
