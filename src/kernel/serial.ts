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

/**
 * Wraps a reload of something another process changes (a pool's rows, announced after each commit)
 * so that runs never overlap and the last call is never lost: a call while one runs is folded into
 * one more run after it. Two overlapping reads could land out of order, the older last, and leave a
 * stale copy until the next change; here the copy always ends on a read that started after the
 * newest announcement. The promise a call returns settles with a run that started after the call.
 */
export function reloadLatest(work: () => Promise<void>): () => Promise<void> {
  let loop: Promise<void> | undefined;
  let again = false;
  return () => {
    again = true;
    loop ??= (async () => {
      let failure: unknown;
      try {
        while (again) {
          again = false;
          try {
            await work();
            failure = undefined;
          } catch (err) {
            failure = err;
          }
        }
      } finally {
        loop = undefined;
      }
      if (failure !== undefined) throw failure;
    })();
    return loop;
  };
}
