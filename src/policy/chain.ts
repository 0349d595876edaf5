/** Calls `start`, turning a synchronous throw into a rejection, as an async function would. */
export function begin<T>(start: () => Promise<T>): Promise<T> {
  try {
    return start();
  } catch (error) {
    return Promise.reject(error);
  }
}
