/**
 * Counts Node's MaxListenersExceededWarning instead of printing each one. undici's fetch adds
 * an abort listener to the request's signal per request and removes it only when the request
 * is garbage collected, so a client that fails fast on one long-lived signal trips the
 * warning thousands of times; the dead-server section reports who does.
 */
let listenerWarnings = 0;

export function installWarningCounter(): void {
  process.removeAllListeners("warning");
  process.on("warning", (warning) => {
    if (warning.name === "MaxListenersExceededWarning") listenerWarnings++;
    else console.error(`(warning) ${warning.name}: ${warning.message}`);
  });
}

export function listenerWarningCount(): number {
  return listenerWarnings;
}
