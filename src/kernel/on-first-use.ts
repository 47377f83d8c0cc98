/**
 * A capability's implementation, loaded by its first use (issue 42, idle memory). Its routes and tool
 * descriptions are registered up front, so the OpenAPI document, the 405 table and the tool registry
 * are whole at start; the module behind them is imported by the first request or tool call that
 * needs it. Under tsx that is a real dynamic import. In the bundle (scripts/bundle.mjs) esbuild makes
 * the imported modules wrapped ones, evaluated on that first call: until then none of their
 * top-level code runs, none of their functions is compiled (or kept in the code cache), and none of
 * their tables is built. The bundle still holds their source text.
 */
export interface OnFirstUse<T> {
  /** The implementation, loaded once; a load that failed is tried again by the next call. */
  (): Promise<T>;
  /** The implementation if a caller started loading it, once loaded (close only what was opened). */
  started(): Promise<T | undefined>;
}

export function onFirstUse<T>(load: () => Promise<T>): OnFirstUse<T> {
  let pending: Promise<T> | undefined;
  const get = (): Promise<T> =>
    (pending ??= load().catch((err: unknown) => {
      pending = undefined;
      throw err;
    }));
  return Object.assign(get, { started: async () => (pending ? pending.catch(() => undefined) : undefined) });
}
