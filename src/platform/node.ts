/** The platform on Node, Bun and Deno: everything, from Node's APIs (see types.ts). */
import { AsyncLocalStorage, AsyncResource } from "node:async_hooks";
import { createHash, scrypt, scryptSync } from "node:crypto";
import { setMaxListeners } from "node:events";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Platform } from "./types.js";

export const platform: Platform = {
  name: "node",
  files: {
    path: (source, from) => (source instanceof URL ? fileURLToPath(source) : from === undefined ? resolve(source) : resolve(from, source)),
    read: (path) => readFile(path, "utf8"),
    readSync: (path) => readFileSync(path, "utf8"),
    workspaceOf: (file) => (basename(dirname(file)) === ".vscode" ? dirname(dirname(file)) : dirname(file)),
  },
  env: () => process.env,
  cwd: () => process.cwd(),
  homeDir: () => homedir(),
  warn: (message, type) => process.emitWarning(message, type),
  sha256Hex: (text) => createHash("sha256").update(text).digest("hex"),
  scryptHex: (input, salt, length, cost) => scryptSync(input, salt, length, cost).toString("hex"),
  scryptHexAsync: (input, salt, length, cost) =>
    new Promise((done, fail) => scrypt(input, salt, length, cost, (error, key) => (error ? fail(error) : done(key.toString("hex"))))),
  runContext: () => new AsyncLocalStorage(),
  bindContext: (fn) => {
    // An AsyncResource, not AsyncLocalStorage.bind: bind also defines two deprecated accessors
    // on the bound function, which cost more than the rest of a call attempt's setup together.
    const here = new AsyncResource("McpToolContext");
    return (...args) => here.runInAsyncScope(fn, undefined, ...args);
  },
  unlimitedListeners: (signal) => setMaxListeners(0, signal),
  unref: (timer) => (timer as { unref?: () => void }).unref?.(),
};
