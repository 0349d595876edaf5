/**
 * What the library needs from its runtime beyond the web platform (fetch, streams, timers, Web
 * Crypto's `randomUUID`). Node gives all of it (node.ts); elsewhere (Workers, edge functions, a
 * browser) neutral.ts gives what can be had without Node and leaves the rest undefined.
 *
 * Which one a program gets is the package's export conditions' choice: `node` (Node, Bun, Deno)
 * loads the build made with node.ts, every other runtime the one made with neutral.ts
 * (tsup.config.ts). Tests and type checks see node.ts, through index.ts.
 *
 * The floor of the house: it imports nothing of the library's own. What the Node build adds
 * on top (stdio servers, the listen probe, the Redis fleet) is built from the library's code,
 * so it stands higher up, in src/nodeOnly/.
 */

/** The piece of `AsyncLocalStorage` the library uses. */
export interface RunContext<T> {
  run<R>(store: T, fn: () => R): R;
  getStore(): T | undefined;
}

/** What reading a configuration file needs. */
export interface ConfigFiles {
  /** The absolute path of a file named by a `file:` URL or a path (from `from`, or the working directory). */
  path(source: string | URL, from?: string): string;
  read(path: string): Promise<string>;
  readSync(path: string): string;
  /** VS Code keeps `mcp.json` in the workspace's `.vscode/`; other tools beside their files. */
  workspaceOf(file: string): string;
}

/** Scrypt's cost, as node:crypto names it. */
export interface ScryptCost {
  N: number;
  r: number;
  p: number;
  maxmem: number;
}

export interface Platform {
  /** "node" where Node's APIs are there (Node, Bun, Deno), "neutral" elsewhere. */
  readonly name: "node" | "neutral";
  /** Configuration files: `loadMcpConfig(path)` and an `envFile`. */
  readonly files?: ConfigFiles;
  /** Where `${VAR}` is read and relative paths start, when the caller does not say. */
  env(): Readonly<Record<string, string | undefined>>;
  cwd(): string | undefined;
  homeDir(): string | undefined;
  /** A warning for the operator (Node's `process.emitWarning`, or `console.warn`). */
  warn(message: string, type: string): void;
  /** SHA-256 of UTF-8 text, in hex. */
  sha256Hex(text: string): string;
  /** Scrypt of UTF-8 text, in hex: synchronous, and off the event loop where the runtime can. */
  scryptHex(input: string, salt: string, length: number, cost: ScryptCost): string;
  scryptHexAsync(input: string, salt: string, length: number, cost: ScryptCost): Promise<string>;
  /** A fresh async context store (AsyncLocalStorage where there is one). */
  runContext<T>(): RunContext<T>;
  /** `fn`, bound to the async context it is bound in: the caller's tool run and span follow it. */
  bindContext<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void;
  /** Lifts the listener limit on a signal many waits listen to (Node warns past 10). */
  unlimitedListeners(signal: AbortSignal): void;
  /** Lets the process exit while the timer runs (Node); nothing elsewhere. */
  unref(timer: unknown): void;
}
