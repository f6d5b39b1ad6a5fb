/**
 * `read`, shared by the callers that come while one is on its way: a caller
 * gets the answer of a read that started after it called, so what the answer
 * says is at least as new as the call. A caller that comes while a read runs
 * waits for the next one, which every such caller shares. A read that fails
 * fails those waiting for the next one too, with its error: they asked while
 * the store was failing, and each of them is answered within one read's bound.
 */
export function sharedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  let next: Promise<T> | undefined;
  const begin = () => {
    next = undefined;
    const started = read();
    running = started;
    const done = () => {
      if (running === started) running = undefined;
    };
    started.then(done, done);
    return started;
  };
  return () => {
    if (!running) return begin();
    next ??= running.then(begin, (err: unknown) => {
      next = undefined;
      throw err;
    });
    return next;
  };
}
