/**
 * stdio servers in Bun and Deno: the Node build (their `node` export condition) starts the server
 * as a child process through their node:child_process, and a call goes through.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { stdioFixtureCommand } from "../servers/stdio.js";
import { cannotStart } from "./harness.js";

const exec = promisify(execFile);
const BIN = fileURLToPath(new URL("../../node_modules/.bin/", import.meta.url));
const SCRIPT = fileURLToPath(new URL("./fixtures/stdio.mjs", import.meta.url));

describe.each([
  ["bun", [`${BIN}bun`, [SCRIPT]]],
  ["deno", [`${BIN}deno`, ["run", "-A", "--no-prompt", SCRIPT]]],
] as const)("a stdio server in %s", (runtime, [bin, args]) => {
  const why = cannotStart(runtime);
  it.skipIf(why !== undefined)(`starts the server and calls its tool${why ? ` (skipped: ${why})` : ""}`, async () => {
    const { command, args: serverArgs } = stdioFixtureCommand();
    const { stdout } = await exec(bin, [...args], { env: { ...process.env, STDIO_CMD: JSON.stringify([command, ...serverArgs]) }, timeout: 60_000 });
    expect(JSON.parse(stdout.trim().split("\n").at(-1)!)).toEqual({ out: "hi" });
  }, 90_000);
});
