/**
 * The hot path of a tool call chains `.then` instead of awaiting. An async function waiting at
 * an `await` keeps its whole frame alive while the call is in flight (a generator object, its
 * registers, the two await closures and their context: about half a kilobyte), and a call passes
 * through a dozen such layers. A `.then` keeps one reaction and one promise, about a fifth of that.
 * The slow paths (retries, reconnects, fallbacks) stay async functions: they are rare, and clearer so.
 */

/** Calls `start`, turning a synchronous throw into a rejection, as an async function would. */
export function begin<T>(start: () => Promise<T>): Promise<T> {
  try {
    return start();
  } catch (error) {
    return Promise.reject(error);
  }
}
