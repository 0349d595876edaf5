/**
 * Blocks the event loop from inside a check-phase callback, as a stall in an I/O callback does,
 * for `ms`: a long synchronous task, or a busy machine that kept the process off the CPU. After
 * it, Node runs the timers that expired meanwhile before it reads the I/O that arrived meanwhile.
 */
export function blockLoop(ms: number): Promise<void> {
  return new Promise((resolve) =>
    setImmediate(() => {
      const until = performance.now() + ms;
      while (performance.now() < until);
      resolve();
    }),
  );
}
