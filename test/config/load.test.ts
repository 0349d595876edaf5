/**
 * `loadMcpConfig` reads the files users already have: one example per format, written to disk
 * as the tool that owns the format writes it, and the errors that name the file, the server
 * and the field.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadMcpConfig, McpConfigError } from "../../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "mcp-config-"));
function file(name: string, text: string): string {
  const path = join(dir, name);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}
const env = { GITHUB_TOKEN: "ghp_test123", API_KEY: "k-42", HOME_DIR: "/home/me" };

describe("loadMcpConfig", () => {
  it("reads Claude Desktop's claude_desktop_config.json (stdio and a remote server)", async () => {
    const path = file(
      "claude_desktop_config.json",
      JSON.stringify({
        mcpServers: {
          github: { command: "npx", args: ["-y", "@modelcontextprotocol/server-github"], env: { GITHUB_PERSONAL_ACCESS_TOKEN: "${GITHUB_TOKEN}" } },
          files: { command: "mcp-files", args: ["${HOME_DIR}/docs"], disabled: true },
        },
      }),
    );
    const warnings: string[] = [];
    const config = await loadMcpConfig(path, { env, onWarning: (w) => warnings.push(w) });
    expect(config.servers).toEqual({
      github: { transport: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-github"], env: { GITHUB_PERSONAL_ACCESS_TOKEN: "ghp_test123" } },
    });
    expect(warnings).toEqual([`${path}: mcpServers.files: disabled: the server is skipped`]);
  });

  it("reads Cursor's .cursor/mcp.json with ${env:VAR}, a url and headers", async () => {
    const path = file(
      ".cursor/mcp.json",
      JSON.stringify({ mcpServers: { search: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer ${env:API_KEY}" } }, legacy: { type: "sse", url: "https://old.example.com/sse" } } }),
    );
    const config = await loadMcpConfig(path, { env });
    expect(config.servers).toEqual({
      search: { transport: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer k-42" } },
      legacy: { transport: "sse", url: "https://old.example.com/sse" },
    });
  });

  it("reads VS Code's .vscode/mcp.json: comments, trailing commas, type, envFile and ${workspaceFolder}", async () => {
    file(".vscode/../.env", "# secrets\nDB_URL=postgres://db/app\nexport MODE='ro'\n");
    const path = file(
      ".vscode/mcp.json",
      `{
        // servers of this workspace
        "servers": {
          "db": { "type": "stdio", "command": "db-mcp", "args": ["--root", "\${workspaceFolder}"], "envFile": ".env", "env": { "MODE": "rw" }, },
          "api": { "type": "http", "url": "http://localhost:8080/mcp", },
        },
        "inputs": [],
      }`,
    );
    const warnings: string[] = [];
    const config = await loadMcpConfig(path, { env, onWarning: (w) => warnings.push(w) });
    expect(config.servers).toEqual({
      db: { transport: "stdio", command: "db-mcp", args: ["--root", dir], env: { DB_URL: "postgres://db/app", MODE: "rw" } },
      api: { transport: "http", url: "http://localhost:8080/mcp" },
    });
    expect(warnings).toEqual([expect.stringContaining("inputs: ignored")]);
  });

  it("reads @langchain/mcp-adapters' shape: transport names, restart/reconnect and top-level options mapped or reported", async () => {
    const warnings: string[] = [];
    const config = await loadMcpConfig(
      {
        mcpServers: {
          math: { transport: "stdio", command: "node", args: ["math.js"], restart: { enabled: true, maxAttempts: 3, delayMs: 500 } },
          weather: { transport: "streamable-http", url: "https://w.example.com/mcp", reconnect: { enabled: true, delayMs: 200 }, automaticSSEFallback: false },
        },
        prefixToolNameWithServerName: true,
        additionalToolNamePrefix: "mcp",
        throwOnLoadError: false,
        defaultToolTimeout: 5000,
      },
      { env, onWarning: (w) => warnings.push(w) },
    );
    expect(config).toEqual({
      servers: {
        math: { transport: "stdio", command: "node", args: ["math.js"], reconnect: { enabled: true, minDelayMs: 500 } },
        weather: { transport: "http", url: "https://w.example.com/mcp", reconnect: { enabled: true, minDelayMs: 200 } },
      },
      prefixToolNames: true,
      onConnectionError: "skip",
      timeoutMs: 5000,
    });
    expect(warnings).toEqual([
      "config: mcpServers.math: restart.maxAttempts: ignored (reconnection is retried before each call, with backoff up to reconnect.maxDelayMs)",
      expect.stringContaining("mcpServers.weather: automaticSSEFallback: false is not supported"),
      expect.stringContaining("additionalToolNamePrefix: ignored"),
    ]);
  });

  it("reads our own format, with policy options beside the servers and per server", async () => {
    const path = file(
      "ours.json",
      JSON.stringify({
        servers: { files: { transport: "stdio", command: "mcp-files", trustAnnotations: true, timeoutMs: 2000 } },
        retry: { retries: 1 },
        tools: { "files/*": { idempotent: true } },
      }),
    );
    const config = await loadMcpConfig(path);
    expect(config).toEqual({
      servers: { files: { transport: "stdio", command: "mcp-files", trustAnnotations: true, timeoutMs: 2000 } },
      retry: { retries: 1 },
      tools: { "files/*": { idempotent: true } },
    });
  });

  it("names the file, the server and the field of a variable that is not set", async () => {
    const path = file("missing.json", JSON.stringify({ mcpServers: { github: { command: "npx", env: { TOKEN: "${NOT_SET_ANYWHERE}" } } } }));
    const error = await loadMcpConfig(path, { env }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConfigError);
    expect((error as Error).message).toBe(
      `Invalid MCP toolkit configuration: ${path}: mcpServers.github.env.TOKEN: the environment variable NOT_SET_ANYWHERE is not set (referenced as \${NOT_SET_ANYWHERE})`,
    );
  });

  it("reports an unknown key and the known ones, under the file's own name for the servers", async () => {
    const path = file("typo.json", JSON.stringify({ mcpServers: { db: { command: "db-mcp", trustAnotations: true } } }));
    const error = (await loadMcpConfig(path).catch((e: unknown) => e)) as McpConfigError;
    expect(error.message).toContain(`${path}: mcpServers.db.trustAnotations: unknown option`);
    expect(error.message).toContain("trustAnnotations");
    await expect(loadMcpConfig({ servers: { a: { command: "x" } }, retries: 2 })).rejects.toThrow(/config: retries: unknown option/);
  });

  it.each([
    // Without `command` or `url` the entry would read as "neither a local nor a remote server".
    [{ mcpServers: { db: { comand: "db-mcp", args: [] } } }, "mcpServers.db.comand", "command"],
    [{ mcpServers: { db: { urll: "https://x/mcp" } } }, "mcpServers.db.urll", "url"],
    [{ mcpServers: { db: { serverURL: "https://x/mcp" } } }, "mcpServers.db.serverURL", "serverUrl"],
    // Keys of other tools' formats and ours, at any level of the entry.
    [{ mcpServers: { db: { tpye: "http", url: "https://x/mcp" } } }, "mcpServers.db.tpye", "type"],
    [{ mcpServers: { db: { command: "db-mcp", evn: { A: "1" } } } }, "mcpServers.db.evn", "env"],
    [{ mcpServers: { db: { command: "db-mcp", envFiel: ".env" } } }, "mcpServers.db.envFiel", "envFile"],
    [{ servers: { db: { type: "http", url: "https://x/mcp", headres: {} } } }, "servers.db.headres", "headers"],
    [{ mcpServers: { db: { command: "db-mcp", restart: { enabeld: true } } } }, "mcpServers.db.reconnect.enabeld", "enabled"],
    [{ mcpServers: { db: { command: "db-mcp", retry: { retrys: 1 } } } }, "mcpServers.db.retry.retrys", "retries"],
    // And the file's top level.
    [{ mcpServer: { db: { command: "db-mcp" } } }, "mcpServer", "mcpServers"],
    [{ mcpServers: { db: { command: "db-mcp" } }, timoutMs: 5 }, "timoutMs", "timeoutMs"],
  ])("names a misspelt key with the key it meant: %j", async (document, field, meant) => {
    const error = await loadMcpConfig(document, { onWarning: () => undefined }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConfigError);
    expect((error as Error).message).toBe(`Invalid MCP toolkit configuration: config: ${field}: unknown option; did you mean "${meant}"?`);
  });

  it("rejects an unknown transport and an ${input:…} it cannot prompt for, naming the field", async () => {
    await expect(loadMcpConfig({ servers: { a: { type: "websocket", url: "ws://x" } } })).rejects.toThrow(
      'config: servers.a.type: expected "stdio", "http", "streamable-http" or "sse", got "websocket"',
    );
    await expect(loadMcpConfig({ servers: { a: { type: "http", url: "https://x/mcp", headers: { Authorization: "${input:token}" } } } })).rejects.toThrow(
      /servers\.a\.headers\.Authorization: \$\{input:token\} asks for input/,
    );
  });

  it("names the file when it is not JSON", async () => {
    const path = file("broken.json", "{ mcpServers: ");
    await expect(loadMcpConfig(path)).rejects.toThrow(`${path}: not valid JSON`);
  });
});
