import type { DoctorReport, ServerDiagnosis } from "./doctor.js";

/** How many tool names a line lists before it says how many more. */
const LISTED = 6;

/** The report as a person reads it: one block per server, then a summary line. */
export function formatReport(report: DoctorReport): string {
  const blocks = [...(report.problems.length > 0 ? [formatProblems(report.problems)] : []), ...report.servers.map(formatServer)];
  const failed = report.servers.filter((s) => !s.ok).length;
  const connected = failed === 0 ? `All ${report.servers.length} servers connected.` : `${failed} of ${report.servers.length} servers failed to connect.`;
  const mistakes = report.problems.length;
  const summary = mistakes === 0 ? connected : `${connected} The file has ${mistakes} ${mistakes === 1 ? "mistake" : "mistakes"} to fix.`;
  const warnings = report.warnings.map((w) => `warning: ${w}`);
  return [`${report.source}`, "", ...blocks.flatMap((b) => [b, ""]), ...warnings, ...(warnings.length ? [""] : []), summary].join("\n");
}

function formatProblems(problems: DoctorReport["problems"]): string {
  const lines = problems.map((p) => `  ${p.field}: ${p.problem}${p.skippedServer === undefined ? "" : ` (server '${p.skippedServer}' not checked)`}`);
  return ["✗ the file", ...lines].join("\n");
}

function formatServer(s: ServerDiagnosis): string {
  const head = `${s.ok ? "✓" : "✗"} ${s.name} (${s.transport}: ${s.target})`;
  if (!s.ok && s.error) {
    return [
      head,
      `  failed after ${s.connectMs} ms: ${s.error.reason} (${s.error.transient ? "may pass if tried again" : "will not pass by itself"})`,
      `  ${s.error.message}`,
      `  the model would be told: ${s.error.hint}`,
      `  fix: ${s.error.remedy}`,
    ].join("\n");
  }
  const lines = [head, `  connected in ${s.connectMs} ms; protocol ${s.protocolVersion ?? "unknown"}${s.server ? `; server ${s.server.name} ${s.server.version}` : ""}`];
  const tools = s.tools;
  if (tools) {
    lines.push(`  ${tools.count} ${tools.count === 1 ? "tool" : "tools"}; read-only: ${list(tools.readOnly)}; idempotent: ${list(tools.idempotent)}`);
    if (tools.readOnly.length + tools.idempotent.length > 0) {
      lines.push(
        tools.annotationsTrusted
          ? "  annotations trusted (trustAnnotations: true): these tools are retried even when the outcome is unknown"
          : "  annotations not trusted: these tools are retried only when the request surely never ran; set trustAnnotations: true if you trust this server",
      );
    }
  }
  return lines.join("\n");
}

function list(names: string[]): string {
  if (names.length === 0) return "none";
  const shown = names.slice(0, LISTED).join(", ");
  return names.length > LISTED ? `${shown} (+${names.length - LISTED} more)` : shown;
}
