/**
 * The README's Benchmarks section is written by a full `npm run bench` between two marks: the
 * marks are there, and rewriting keeps everything outside them as it was.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { README_MARKS, readmeSection, withReadmeSection } from "../../bench/report.js";

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const run = { quick: false, elapsedS: 400, loadAtStart: 1.5, origin: "built", timings: [], code: "commit 0123456789abcdef; src/ clean" };

describe("the README's Benchmarks section", () => {
  it("has its marks, once each, under its heading", () => {
    for (const mark of README_MARKS) expect(readme.split(mark).length).toBe(2);
    expect(readme.indexOf("## Benchmarks")).toBeLessThan(readme.indexOf(README_MARKS[0]));
  });

  it("is replaced by a run's verdicts, and nothing else changes", () => {
    const section = readmeSection([{ goal: "a goal ≤ 1.05", figure: "1.02", pass: true }, { goal: "another | with a bar", figure: "2", pass: false }], run);
    const written = withReadmeSection(readme, section);
    expect(written).toContain("| a goal ≤ 1.05 | met |");
    expect(written).toContain("| another \\| with a bar | missed |");
    expect(written).toContain("commit `0123456`");
    expect(written).toContain("1 of 2 goals met");
    const [before, after] = [readme.slice(0, readme.indexOf(README_MARKS[0])), readme.slice(readme.indexOf(README_MARKS[1]) + README_MARKS[1].length)];
    expect(written.startsWith(before)).toBe(true);
    expect(written.endsWith(after)).toBe(true);
    // Written twice, the second run's section replaces the first's.
    expect(withReadmeSection(written, readmeSection([], run))).not.toContain("a goal ≤ 1.05");
  });

  it("leaves a README without its marks as it is", () => {
    expect(withReadmeSection("# no marks here\n", "section")).toBe("# no marks here\n");
  });
});
