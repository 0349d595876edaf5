/**
 * The README's quick start, as tests read it: each file it shows is the fenced block right
 * after a `<!-- quickstart:<name> -->` marker, so a test runs exactly what a reader copies.
 */
import { readFileSync } from "node:fs";

export const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

/** The fenced block after `<!-- quickstart:<name> -->`; throws if the README lost it. */
export function quickstartBlock(name: string, readme = README): string {
  const marker = `<!-- quickstart:${name} -->\n`;
  const at = readme.indexOf(marker);
  if (at < 0) throw new Error(`the README has no ${marker.trim()} marker`);
  const block = /^```\w*\n([\s\S]*?)^```/m.exec(readme.slice(at + marker.length));
  if (!block || !readme.slice(at + marker.length).startsWith("```")) throw new Error(`no fenced block right after ${marker.trim()}`);
  return block[1]!;
}

/** The fenced block that follows the quick start's `run` block: the output the README promises. */
export function quickstartOutput(readme = README): string {
  const marker = "<!-- quickstart:run -->\n";
  const after = readme.slice(readme.indexOf(marker) + marker.length);
  const blocks = [...after.matchAll(/^```\w*\n([\s\S]*?)^```/gm)];
  return blocks[1]![1]!;
}

/** The first ```bash block under the README's `## Quick start`: the setup commands. */
export function quickstartSetup(readme = README): string {
  const section = readme.split(/^## /m).find((s) => s.startsWith("Quick start\n"));
  const block = section && /```bash\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error("no bash block under the README's Quick start");
  return block[1]!;
}
