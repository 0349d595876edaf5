/**
 * The part of a tool call that is in flight while the server works (McpTool.call, the
 * toolkit's executor, the pipeline's attempt, callTool's attempt) chains `.then` instead of
 * awaiting: an async function waiting at an `await` keeps its frame alive, and with async hooks
 * on (every LangGraph run) each await holds more. Kept because the bench's heap section
 * (issue 33's goal: heap per in-flight call at most 2× the floor's) measured those layers as
 * async functions at 7.42 KB (fresh process) and 10.31 KB (async hooks on) per in-flight call,
 * against the floor's 3.79 and 4.70 KB (2.19×, a miss); chained, 5.83 and 6.71 KB (1.43×).
 * The paths taken only after a failure (retries, re-sends, fallbacks, classifying a failed
 * attempt) are async functions: nothing of theirs is in flight while a call waits.
 */

/** Calls `start`, turning a synchronous throw into a rejection, as an async function would. */
export function begin<T>(start: () => Promise<T>): Promise<T> {
  try {
    return start();
  } catch (error) {
    return Promise.reject(error);
  }
}
