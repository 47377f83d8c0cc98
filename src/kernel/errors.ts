/**
 * The one error type a client or a model can cause. `message` is a sentence that says what to fix;
 * it is the only thing that ever reaches a client (as `{"error": message}` with `status`).
 */
export class EngineError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

export const badRequest = (message: string) => new EngineError(400, message);
export const forbidden = (message = 'forbidden: non-local host or origin') => new EngineError(403, message);
export const notFound = (message: string) => new EngineError(404, message);
export const conflict = (message: string) => new EngineError(409, message);
export const tooLarge = (message: string) => new EngineError(413, message);
export const serverError = (message: string) => new EngineError(500, message);

export const isEngineError = (e: unknown): e is EngineError => e instanceof EngineError;

/** A short, stack-free description of any thrown value, for logs and tool results. */
export function describeError(e: unknown): string {
  if (e instanceof Error) return e.message || e.name;
  return String(e);
}

/**
 * Why a JSON text did not parse, without the snippet of the text V8 puts in its message
 * (`Unexpected token 'h', "{"a": hunter2}" is not valid JSON`): the text may hold a key.
 */
export function jsonSyntaxReason(e: unknown): string {
  return describeError(e).replace(/,\s*(?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, '');
}
