/**
 * A queue that runs async work one piece at a time, in call order: a read-modify-write of a store
 * (settings, config, secrets) never interleaves with another. A failure rejects its own caller
 * only; the queue goes on. `after` holds the queue until something else is ready.
 */
export function serialQueue(after: Promise<unknown> = Promise.resolve()): <T>(work: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = after.catch(() => undefined);
  return (work) => {
    const next = tail.then(work);
    tail = next.catch(() => undefined);
    return next;
  };
}
