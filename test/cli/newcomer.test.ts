/**
 * Issue 35, "a newcomer's first hour", through doctor: a misspelt key no longer stops it before
 * any server is checked; a URL with `user:pass@`, https on a plain-HTTP port and a command
 * written as one string each get a fix line that names the actual mistake. Real servers: the
 * stdio fixture, and a plain HTTP server on 127.0.0.1.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDoctor } from "../../src/cli/doctor.js";
import { formatReport } from "../../src/cli/format.js";
import { main } from "../../src/cli/main.js";
import { stdioFixtureCommand } from "../servers/stdio.js";

const dir = mkdtempSync(join(tmpdir(), "doctor-newcomer-"));
let plain: Server;
let port = 0;

beforeAll(async () => {
  plain = createServer((request, response) => {
    request.resume();
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
  port = (plain.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => plain.close(() => resolve())));

function configFile(name: string, document: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(document));
  return path;
}

describe("doctor on a file with misspelt keys", () => {
  const { command, args } = stdioFixtureCommand();
  const file = () =>
    configFile("typos.json", {
      mcpServers: {
        local: { command, args, timeoutMS: 5000 },
        files: { comand: "mcp-files", args: ["."] },
        old: { command: "old-server", disabled: true },
      },
      retyr: { retries: 1 },
    });

  it("names each misspelt key and still checks every server it can", async () => {
    const report = await runDoctor(file());
    expect(report.problems).toHaveLength(3);
    expect(report.problems).toEqual(
      expect.arrayContaining([
        { field: "mcpServers.local.timeoutMS", problem: 'unknown option; did you mean "timeoutMs"?' },
        { field: "mcpServers.files.comand", problem: 'unknown option; did you mean "command"?', skippedServer: "files" },
        { field: "retyr", problem: 'unknown option; did you mean "retry"?' },
      ]),
    );
    expect(report.servers.map((s) => [s.name, s.ok])).toEqual([["local", true]]);
    expect(report.ok).toBe(false);
    // Read once per mistake, warned once.
    expect(report.warnings.filter((w) => w.includes("mcpServers.old"))).toHaveLength(1);
    const text = formatReport(report);
    expect(text).toContain(`mcpServers.files.comand: unknown option; did you mean "command"? (server 'files' not checked)`);
    expect(text).toContain("✓ local");
    expect(text).toMatch(/The file has 3 mistakes to fix\.$/);
  }, 30_000);

  it("exits 1, not 2, and prints the report with the key", async () => {
    let stdout = "";
    let stderr = "";
    const code = await main(["doctor", file()], { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) } });
    expect(code).toBe(1);
    expect(stderr).toBe("");
    expect(stdout).toContain("retyr: unknown option");
    expect(stdout).toContain("✓ local");
  }, 30_000);
});

describe("doctor on a file with a value that cannot work", () => {
  it("names the field, checks the servers with its default, and still exits 2 for a file with no servers", async () => {
    const { command, args } = stdioFixtureCommand();
    const report = await runDoctor(configFile("values.json", { mcpServers: { local: { command, args } }, timeoutMs: "soon" }));
    expect(report.problems).toEqual([{ field: "timeoutMs", problem: expect.stringMatching(/number/) }]);
    expect(report.servers.map((s) => [s.name, s.ok])).toEqual([["local", true]]);
    await expect(runDoctor(configFile("none.json", { mcpServers: {}, retyr: 1 }))).rejects.toThrow(/mcpServers: expected at least one server/);
  }, 30_000);
});

describe("doctor's fix line names the mistake", () => {
  it.each(["http", "sse"] as const)("a %s URL with user:pass@: the credentials in the URL, not 'read its logs'", async (transport) => {
    const report = await runDoctor({ servers: { creds: { transport, url: `http://alice:s3cret-pw@127.0.0.1:${port}/mcp` } } });
    const error = report.servers[0]!.error!;
    expect(error.reason).toBe("http_error");
    expect(error.hint).not.toMatch(/may have run/);
    expect(error.message).toContain("holds credentials");
    expect(error.remedy).toContain("credentials");
    expect(error.remedy).toContain("`headers`");
    expect(error.remedy).not.toContain("read its logs");
    expect(JSON.stringify(report)).not.toContain("s3cret-pw");
  });

  it("https on a plain-HTTP port: the server speaks plain HTTP, use http://", async () => {
    const report = await runDoctor({ servers: { plain: { transport: "http", url: `https://127.0.0.1:${port}/mcp` } } });
    const error = report.servers[0]!.error!;
    expect(error.reason).toBe("tls_error");
    expect(error.remedy).toContain("plain HTTP");
    expect(error.remedy).toContain("http://");
    expect(error.remedy).not.toContain("certificate is not trusted");
  });

  it("a command written as one string: split it into command and args", async () => {
    const report = await runDoctor({ servers: { one: { transport: "stdio", command: "node x.js" } } });
    const error = report.servers[0]!.error!;
    expect(error.reason).toBe("spawn_failed");
    expect(error.remedy).toContain('"command": "node", "args": ["x.js"]');
  });

  it("a single program not installed still gets the install line", async () => {
    const report = await runDoctor({ servers: { ghost: { transport: "stdio", command: "mcp-server-that-is-not-installed" } } });
    expect(report.servers[0]!.error!.remedy).toMatch(/^Install the command/);
  });
});
