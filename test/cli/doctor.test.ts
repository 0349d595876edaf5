/**
 * `doctor` against the four servers a newcomer meets on the first day: one that works, a
 * command that is not installed, a port nothing listens on, and an HTTPS endpoint with a
 * self-signed certificate (made here with openssl).
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDoctor, type DoctorReport } from "../../src/cli/doctor.js";
import { HINTS } from "../../src/errors/reasons.js";
import { formatReport } from "../../src/cli/format.js";
import { stdioFixtureCommand } from "../servers/stdio.js";
import { stopwatch } from "../timing.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "doctor-"));
let https: HttpsServer;
let configPath = "";
let closedPort = 0;

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")], { stdio: "ignore" });
  https = createHttpsServer({ key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) }, (_req, res) => res.writeHead(404).end());
  await new Promise<void>((resolve) => https.listen(0, "127.0.0.1", resolve));
  closedPort = await freePort();
  const { command, args } = stdioFixtureCommand();
  configPath = join(dir, "claude_desktop_config.json");
  writeFileSync(
    configPath,
    JSON.stringify({
      mcpServers: {
        local: { command, args },
        ghost: { command: "mcp-server-that-is-not-installed" },
        down: { url: `http://127.0.0.1:${closedPort}/mcp` },
        selfsigned: { url: `https://127.0.0.1:${(https.address() as { port: number }).port}/mcp`, headers: { Authorization: "Bearer sk-doctor-secret-0123456789" } },
      },
    }),
  );
}, 30_000);

afterAll(async () => {
  await new Promise<void>((resolve) => https.close(() => resolve()));
});

describe("doctor", () => {
  it("prints one block per server that a newcomer can act on", async () => {
    const report = await runDoctor(configPath);
    const text = formatReport(report);
    const blocks = text.split("\n\n").filter((b) => /^[✓✗] /.test(b));
    expect(blocks).toHaveLength(4);
    const block = (name: string) => blocks.find((b) => b.includes(` ${name} (`))!;

    expect(block("local")).toMatch(/^✓ local \(stdio: .*stdio-server\.ts\)/);
    expect(block("local")).toMatch(/connected in \d+ ms; protocol \d{4}-\d{2}-\d{2}; server stdio-fixture 1\.0\.0/);
    expect(block("local")).toMatch(/\d+ tools; read-only: echo/);
    expect(block("local")).toContain("annotations not trusted");

    expect(block("ghost")).toContain("spawn_failed");
    expect(block("ghost")).toContain("mcp-server-that-is-not-installed");
    expect(block("ghost")).toContain("fix: Install the command, or give its absolute path");
    expect(block("ghost")).toContain("`command -v mcp-server-that-is-not-installed` shows yours");

    expect(block("down")).toContain("connection_refused");
    expect(block("down")).toContain("fix: Nothing listens there");

    // `tls_error` is classified in src/errors/classify/tls.ts; the remedy names NODE_EXTRA_CA_CERTS.
    expect(block("selfsigned")).toContain("tls_error");
    expect(block("selfsigned")).toMatch(/self[- ]signed/i);
    expect(block("selfsigned")).toContain("NODE_EXTRA_CA_CERTS");
    expect(text).not.toContain("sk-doctor-secret-0123456789");
    expect(text).toContain("3 of 4 servers failed to connect.");
  }, 60_000);

  it("prints JSON for programs and exits 1 when a server failed", async () => {
    const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      execFile(process.execPath, ["--import", "tsx", join(root, "src/cli/bin.ts"), "doctor", configPath, "--json"], { cwd: root, timeout: 60_000 }, (error, stdout) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout });
      });
    });
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as DoctorReport;
    expect(report.ok).toBe(false);
    const byName = Object.fromEntries(report.servers.map((s) => [s.name, s]));
    expect(Object.keys(byName).sort()).toEqual(["down", "ghost", "local", "selfsigned"]);
    expect(byName.local).toMatchObject({ ok: true, transport: "stdio", protocolVersion: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), tools: { readOnly: expect.arrayContaining(["echo"]), annotationsTrusted: false } });
    expect(byName.local!.tools!.count).toBeGreaterThan(5);
    expect(byName.ghost).toMatchObject({ ok: false, transport: "stdio", error: { reason: "spawn_failed", transient: false } });
    expect(byName.down).toMatchObject({ ok: false, transport: "http", error: { reason: "connection_refused", transient: true } });
    expect(byName.selfsigned).toMatchObject({ ok: false, transport: "http", error: { reason: "tls_error", transient: false } });
    expect(stdout).not.toContain("sk-doctor-secret-0123456789");
  }, 60_000);
});

describe("doctor on a command that is no MCP server", () => {
  it("tells a person what to check and what to run, not the model's hint", async () => {
    const path = join(dir, "cat.json");
    writeFileSync(path, JSON.stringify({ mcpServers: { echo: { command: "cat" } } }));
    const [echo] = (await runDoctor(path, { connectTimeoutMs: 10_000 })).servers;
    expect(echo).toMatchObject({ ok: false, transport: "stdio", target: "cat" });
    // `cat` sends the client's own initialize back, which the client answers "Method not found".
    expect(echo!.error!.remedy).toContain("`cat` started but did not answer as an MCP server");
    expect(echo!.error!.remedy).toContain("Run it yourself");
    expect(Object.values(HINTS)).not.toContain(echo!.error!.remedy);
    expect(echo!.error!.remedy).not.toBe(echo!.error!.hint);
  }, 30_000);

  it("counts the connect only, not the seconds a silent process takes to stop", async () => {
    // Never answers and ignores its stdin closing, so stopping it takes the SDK's 2 s wait and a SIGTERM.
    const path = join(dir, "silent.json");
    writeFileSync(path, JSON.stringify({ mcpServers: { silent: { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] } } }));
    const clock = stopwatch();
    const [silent] = (await runDoctor(path, { connectTimeoutMs: 1500 })).servers;
    expect(silent!.error!.reason).toBe("network_timeout");
    expect(silent!.connectMs).toBeGreaterThanOrEqual(1500);
    // Generous for a busy machine, and still below the 3500 ms the stop would add: widened by at most 1 s of stall.
    clock.within(2500, "the connect's measured time", silent!.connectMs, 1_000);
    expect(clock.elapsed()).toBeGreaterThan(silent!.connectMs);
    expect(formatReport({ source: path, ok: false, servers: [silent!], warnings: [], problems: [] })).toContain(`failed after ${silent!.connectMs} ms: network_timeout`);
    expect(silent!.error!.remedy).toContain("did not answer within 1500 ms");
    expect(silent!.error!.remedy).toContain("doctor --timeout <ms>");
  }, 30_000);
});
