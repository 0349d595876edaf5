import { platform } from "../platform/index.js";

/** Where `${…}` references are resolved from. */
export interface ExpandContext {
  env: Readonly<Record<string, string | undefined>>;
  /** VS Code's `${workspaceFolder}`: the folder the configuration belongs to. */
  workspaceFolder?: string | undefined;
}

/** A reference that cannot be resolved; the loader adds the file, the server and the field. */
export class UnresolvedReference extends Error {}

const REFERENCE = /\$\{([^}]*)\}/g;

/**
 * Replaces `${VAR}`, `${env:VAR}` (VS Code, Cursor), `${VAR:-default}` (Claude Code),
 * `${workspaceFolder}` and `${userHome}` in one string. A variable that is not set, or an
 * `${input:…}` that would need a person to answer a prompt, is an error naming it: a server
 * started with an empty token fails later, and far less clearly.
 */
export function expandString(value: string, context: ExpandContext): string {
  return value.replace(REFERENCE, (_match, inner: string) => {
    const [name = "", fallback] = splitDefault(inner.trim());
    if (name === "workspaceFolder" && context.workspaceFolder !== undefined) return context.workspaceFolder;
    if (name === "userHome") {
      const home = platform.homeDir();
      if (home === undefined) throw new UnresolvedReference("${userHome} names a home folder, which this runtime has not");
      return home;
    }
    if (name.startsWith("input:")) {
      throw new UnresolvedReference(`\${${name}} asks for input at start-up, which only an editor can do; put the value in an environment variable and write \${env:NAME}`);
    }
    const variable = name.startsWith("env:") ? name.slice(4) : name;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable)) throw new UnresolvedReference(`\${${inner}} is not a reference this loader understands (\${VAR}, \${env:VAR}, \${VAR:-default})`);
    const found = context.env[variable];
    if (found !== undefined) return found;
    if (fallback !== undefined) return fallback;
    throw new UnresolvedReference(`the environment variable ${variable} is not set (referenced as \${${inner}})`);
  });
}

function splitDefault(inner: string): [string, string?] {
  const at = inner.indexOf(":-");
  return at < 0 ? [inner] : [inner.slice(0, at), inner.slice(at + 2)];
}

/**
 * Expands every string inside `value` (object keys are left as written). `onError` names
 * where a reference failed, as a path of keys below `value`.
 */
export function expandDeep(value: unknown, context: ExpandContext, onError: (path: (string | number)[], error: UnresolvedReference) => never, path: (string | number)[] = []): unknown {
  if (typeof value === "string") {
    try {
      return expandString(value, context);
    } catch (error) {
      if (error instanceof UnresolvedReference) onError(path, error);
      throw error;
    }
  }
  if (Array.isArray(value)) return value.map((v, i) => expandDeep(v, context, onError, [...path, i]));
  if (typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandDeep(v, context, onError, [...path, k])]));
  }
  return value;
}

/** The `KEY=value` lines of a dotenv file's text (VS Code's `envFile`): `#` comments, optional quotes and `export`. */
export function readEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    const [, key = "", rest = ""] = match;
    const quoted = /^(['"])(.*)\1$/.exec(rest);
    out[key] = quoted ? (quoted[2] ?? "") : rest.replace(/\s+#.*$/, "");
  }
  return out;
}

/** A comma that only whitespace separates from a closing bracket. */
const TRAILING = /\s*[}\]]/y;

/**
 * JSON with the comments and trailing commas that VS Code's and Cursor's files allow. Strings
 * are copied as they are, so a `//` inside a URL survives.
 */
export function parseJsonc(text: string): unknown {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
      out += text.slice(start, i + 1);
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 1;
    } else if (c === ",") {
      TRAILING.lastIndex = i + 1;
      if (!TRAILING.test(text)) out += c;
    } else out += c;
  }
  return JSON.parse(out);
}
