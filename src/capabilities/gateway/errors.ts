/**
 * Failures in OpenAI's error shape `{error: {message, type, code}}`, so the official SDKs (and every
 * tool built on them) raise their own typed errors (AuthenticationError, RateLimitError ...).
 */
import type { ServerResponse } from 'node:http';

export class GatewayError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

/** The OpenAI `type` for an HTTP status, as its API uses them. */
export function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

export const invalidRequest = (message: string, code: string | null = null) => new GatewayError(400, message, 'invalid_request_error', code);

export function sendError(res: ServerResponse, error: GatewayError): void {
  if (res.headersSent) return;
  const body = JSON.stringify({ error: { message: error.message, type: error.type, code: error.code, param: null } });
  res.writeHead(error.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
