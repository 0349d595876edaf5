/**
 * Every relative link in the README and in docs/ points at a file that exists, and every
 * `#anchor` at a heading of that file, so moving a section cannot leave a dead link behind.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const pages = ["README.md", "bench/README.md", ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

/** The text outside fenced blocks and inline code, where a `[x](y)` is a link. */
const prose = (md: string) => md.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, text] of md.replace(/^```[\s\S]*?^```/gm, "").matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = text!.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n ? `${slug}-${n}` : slug);
  }
  return out;
}

const links = pages.flatMap((page) =>
  [...prose(readFileSync(join(root, page), "utf8")).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z]+:/i.test(target))
    .map((target) => [page, target] as const),
);

describe("relative links in the README and docs/", () => {
  it("finds the links it checks", () => {
    expect(links.filter(([page]) => page === "README.md").length).toBeGreaterThan(10);
  });

  it.each(links)("%s → %s resolves", (page, target) => {
    const [path, anchor] = target.split("#") as [string, string | undefined];
    const file = path ? join(root, dirname(page), decodeURIComponent(path)) : join(root, page);
    expect(existsSync(file), `${relative(root, file)} exists`).toBe(true);
    if (anchor) expect([...anchors(readFileSync(file, "utf8"))], `a heading #${anchor} in ${relative(root, file)}`).toContain(anchor);
  });
});
