/**
 * The command line of `langchain-mcp-errors`: help is asked for and given (exit 0), a wrong
 * command line or file is named (exit 2), through `main` in this process and once through the
 * bin in a process of its own.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { main, USAGE } from "../../src/cli/main.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "cli-"));

async function run(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) } });
  return { code, stdout, stderr };
}

describe("langchain-mcp-errors", () => {
  it.each([[["--help"]], [["-h"]], [["help"]], [["doctor", "--help"]], [["doctor", "-h"]], [["doctor", "missing.json", "--help"]], [[]]])("prints its usage and exits 0: %j", async (argv: string[]) => {
    const { code, stdout, stderr } = await run(...argv);
    expect(code).toBe(0);
    expect(stdout).toBe(`${USAGE}\n`);
    expect(stderr).toBe("");
  });

  it("says what each option does and what the exit codes mean", () => {
    for (const text of ["--json", "--timeout <ms>", "-h, --help", "connectTimeoutMs", "(default 10000)", "Exit code: 0", "mcp.json, .vscode/mcp.json"]) expect(USAGE).toContain(text);
  });

  it.each([
    [["doctr"], "Unknown command 'doctr'; did you mean 'doctor'?"],
    [["doctor", "--jsn"], "Unknown option '--jsn'."],
    [["doctor", "--timeout", "soon", "mcp.json"], "--timeout takes a whole number of milliseconds ≥ 1; got 'soon'."],
    [["doctor", "a.json", "b.json"], "doctor checks one file; got 2: a.json, b.json."],
  ])("names what is wrong with the command line and exits 2: %j", async (argv, problem) => {
    const { code, stdout, stderr } = await run(...argv);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toBe(`${problem}\n\n${USAGE}\n`);
  });

  it("names a misspelt key of the file with the key it meant, and exits 1 (a mistake to fix, reported with the servers)", async () => {
    const path = join(dir, "claude_desktop_config.json");
    writeFileSync(path, JSON.stringify({ mcpServers: { files: { comand: "mcp-files", args: ["."] } } }));
    const { code, stdout, stderr } = await run("doctor", path);
    expect(code).toBe(1);
    expect(stderr).toBe("");
    expect(stdout).toContain(`mcpServers.files.comand: unknown option; did you mean "command"? (server 'files' not checked)`);
  });

  it("exits 2 for a file that is not JSON", async () => {
    const path = join(dir, "broken.json");
    writeFileSync(path, "{ mcpServers: ");
    const { code, stderr } = await run("doctor", path);
    expect(code).toBe(2);
    expect(stderr).toContain("not valid JSON");
  });

  it("exits 0 for `doctor --help` from the bin, in a process of its own", async () => {
    const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      execFile(process.execPath, ["--import", "tsx", join(root, "src/cli/bin.ts"), "doctor", "--help"], { cwd: root, timeout: 60_000 }, (error, stdout) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout });
      });
    });
    expect(code).toBe(0);
    expect(stdout).toBe(`${USAGE}\n`);
  }, 60_000);
});
