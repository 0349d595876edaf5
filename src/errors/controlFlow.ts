/**
 * LangGraph's control-flow signals (an `interrupt()`, a `Command`) are thrown as errors marked
 * `is_bubble_up`. One thrown inside a tool call (an input handler that pauses the graph) is no
 * failure: every layer lets it through untouched, unclassified, unretried, uncounted.
 */
export function isControlFlow(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { is_bubble_up?: unknown }).is_bubble_up === true;
}
