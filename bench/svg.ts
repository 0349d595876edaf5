/**
 * bench/results.svg, drawn by hand: one horizontal bar per ratio, a line at parity (1.0),
 * and a marker at each goal. A bar past the axis is cut, with its value still printed.
 */
import type { Ratio } from "./model.js";

const WIDTH = 860;
const LABEL_W = 300;
const BAR_H = 18;
const GAP = 8;
const TOP = 76;
const PLOT_W = WIDTH - LABEL_W - 90;

const escape = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** The goal's bound, whichever side it is on. */
const goalOf = (r: Ratio): number | undefined => r.goalMax ?? r.goalMin;

/** A round axis maximum: at least 1.5 (so parity is visible), at most 5. */
function axisMax(ratios: readonly Ratio[]): number {
  const top = Math.max(1.5, ...ratios.map((r) => Math.max(r.value, goalOf(r) ?? 0)).filter(Number.isFinite));
  return Math.min(5, Math.ceil(top * 2) / 2);
}

function colour(r: Ratio): string {
  if (goalOf(r) === undefined) return "#6b8fc7";
  const met = r.goalMax !== undefined ? r.value <= r.goalMax : r.value >= r.goalMin!;
  return met ? "#3c9a5f" : "#c8553d";
}

export function renderSvg(ratios: readonly Ratio[]): string {
  const max = axisMax(ratios);
  const x = (v: number) => Math.round((LABEL_W + (Math.min(Math.max(v, 0), max) / max) * PLOT_W) * 10) / 10;
  const height = TOP + ratios.length * (BAR_H + GAP) + 50;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="16" y="24" font-size="16" font-weight="600">langchain-mcp-errors: ratios (ours ÷ other)</text>`,
    `<text x="16" y="42" fill="#555">Times: a shorter bar is better for ours. Throughput: a longer bar is better. Dashed line: parity (1.0).</text>`,
    `<text x="16" y="58" fill="#555">Green: goal met. Red: goal missed. Blue: no goal set. A black tick marks the goal.</text>`,
  ];
  // Grid lines every 0.5, parity emphasised.
  for (let v = 0; v <= max + 1e-9; v += 0.5) {
    const gx = x(v);
    const parity = Math.abs(v - 1) < 1e-9;
    parts.push(
      `<line x1="${gx}" y1="${TOP - 6}" x2="${gx}" y2="${height - 36}" stroke="${parity ? "#222" : "#e3e3e3"}" stroke-width="${parity ? 1.5 : 1}"${parity ? ' stroke-dasharray="4 3"' : ""}/>`,
      `<text x="${gx}" y="${height - 20}" text-anchor="middle" fill="#555">${v.toFixed(1)}</text>`,
    );
  }
  ratios.forEach((r, i) => {
    const y = TOP + i * (BAR_H + GAP);
    const end = x(r.value);
    const cut = r.value > max;
    parts.push(
      `<text x="${LABEL_W - 8}" y="${y + BAR_H - 5}" text-anchor="end">${escape(r.label)}</text>`,
      `<rect x="${LABEL_W}" y="${y}" width="${Math.max(1, Math.round((end - LABEL_W) * 10) / 10)}" height="${BAR_H}" fill="${colour(r)}" rx="2"/>`,
    );
    if (cut) parts.push(`<path d="M${end - 10} ${y - 2} l6 ${BAR_H + 4} M${end - 5} ${y - 2} l6 ${BAR_H + 4}" stroke="#fff" stroke-width="3"/>`);
    const goal = goalOf(r);
    if (goal !== undefined) {
      const gx = x(goal);
      parts.push(`<line x1="${gx}" y1="${y - 3}" x2="${gx}" y2="${y + BAR_H + 3}" stroke="#111" stroke-width="2.5"/>`);
    }
    parts.push(`<text x="${end + 6}" y="${y + BAR_H - 5}" font-weight="600">${Number.isFinite(r.value) ? r.value.toFixed(2) : "—"}</text>`);
  });
  parts.push(`<text x="${LABEL_W + PLOT_W / 2}" y="${height - 4}" text-anchor="middle" fill="#555">ratio (1.0 = parity)</text>`, "</svg>");
  return `${parts.join("\n")}\n`;
}
