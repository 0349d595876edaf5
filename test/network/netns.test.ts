/**
 * Issue 26, "outcomes that are provable": only a failure while connecting proves that a request
 * was not sent. These failures need a network that goes silent or loses its route, which loopback
 * never does, so each runs for real in a private network namespace (netns/silent-network.ts):
 * real sockets, undici's fetch, the real SDK clients and the toolkit, with the kernel's own
 * `connect ETIMEDOUT`, `read ETIMEDOUT`, `connect EHOSTUNREACH` and `read EHOSTUNREACH`.
 */
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

/** Can this machine make a private network namespace and drop its packets? */
function netnsAvailable(): boolean {
  const probe = spawnSync("unshare", ["-rn", "sh", "-c", "ip link set lo up && tc qdisc show dev lo && command -v nsenter"], { stdio: "ignore" });
  return probe.status === 0;
}

const SCENARIOS = ["readTimeout", "connectTimeout", "unreachable", "toolkitReadTimeout", "toolkitHostUnreachable"] as const;
type Results = Record<(typeof SCENARIOS)[number], Record<string, unknown>>;

/** Runs the scenarios in one namespace (one child process) and reads the line it prints. */
function runScenarios(): Promise<Results> {
  const entry = fileURLToPath(new URL("./netns/silent-network.ts", import.meta.url));
  const child = spawn("unshare", ["-rn", process.execPath, "--import", "tsx", entry, ...SCENARIOS], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk) => (out += String(chunk)));
  child.stderr.on("data", (chunk) => (err += String(chunk)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 110_000);
    child.once("close", () => {
      clearTimeout(timer);
      const line = out.split("\n").find((l) => l.startsWith("RESULT "));
      if (line) resolve(JSON.parse(line.slice(7)) as Results);
      else reject(new Error(`the namespace run printed no result:\n${out}\n${err}`));
    });
  });
}

describe.skipIf(!netnsAvailable())("timeouts and lost routes on a real network (private namespace)", () => {
  let results: Results;
  beforeAll(async () => {
    results = await runScenarios();
  }, 120_000);

  it("reads a connect whose SYN is never answered (connect ETIMEDOUT) as network_timeout, not sent", () => {
    const { chain, classified } = results.connectTimeout;
    expect(chain).toContainEqual(expect.objectContaining({ code: "ETIMEDOUT", syscall: "connect" }));
    expect(classified).toMatchObject({ reason: "network_timeout", transient: true, outcome: "not_sent" });
    expect((classified as { message: string }).message).toMatch(/^Connecting to the server at 127\.0\.0\.1:\d+ timed out \(connect ETIMEDOUT\)\.$/);
  });

  it("reads a request written on a connection that went silent (read ETIMEDOUT) as connection_reset, outcome unknown", () => {
    const { chain, classified } = results.readTimeout;
    expect(chain).toContainEqual(expect.objectContaining({ code: "ETIMEDOUT", syscall: "read" }));
    expect(classified).toMatchObject({ reason: "connection_reset", transient: true, outcome: "unknown" });
    expect((classified as { message: string }).message).toContain("after the request was written (read ETIMEDOUT)");
  });

  it("does not repeat a tool that is not idempotent after a read ETIMEDOUT (it used to, as network_timeout, not sent)", () => {
    const { status, artifact, content } = results.toolkitReadTimeout;
    expect(status).toBe("error");
    expect(artifact).toMatchObject({ reason: "connection_reset", outcome: "unknown", attempts: 1, toolName: "counter" });
    expect(content).toContain("The outcome is unknown: the tool may have run.");
  });

  it("reads no route to the host while connecting (connect EHOSTUNREACH) as connection_refused, not sent", () => {
    const { chain, classified } = results.unreachable;
    expect(chain).toContainEqual(expect.objectContaining({ code: "EHOSTUNREACH", syscall: "connect" }));
    expect(classified).toMatchObject({ reason: "connection_refused", transient: true, outcome: "not_sent" });
    expect((classified as { message: string }).message).toBe("The server at 10.8.0.1:8080 is unreachable (no route to the host).");
  });

  it("reads a host lost after the request was written (read EHOSTUNREACH) as connection_reset, unknown, and does not repeat the call", () => {
    const { artifact } = results.toolkitHostUnreachable;
    expect(artifact).toMatchObject({ reason: "connection_reset", outcome: "unknown", attempts: 1 });
    expect((artifact as { message: string }).message).toContain("became unreachable after the request was written (no route to the host, read EHOSTUNREACH)");
  });
});
