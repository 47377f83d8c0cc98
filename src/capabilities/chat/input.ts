/** What POST /api/chat carries, validated, and the user message a model gets from it. */
import type { ImagePart, ModelMessage, TextPart } from 'ai';
import { badRequest } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import type { PermissionMode } from './types.js';

/** What POST /api/chat carries (validated by parseSend). */
export interface SendInput {
  sessionId: string;
  message: string;
  context?: unknown;
  provider?: string;
  /** A model id on that provider (else the provider's own model). */
  model?: string;
  images?: unknown[];
  agent?: string;
  permissionMode?: PermissionMode;
  /** A dashboard the turn is about: its block joins the system prompt, its tools the turn (dashboards capability). */
  dashboard?: string;
  /** An atlas the turn is about: its map joins the system prompt, read_card and atlas_source the turn. */
  atlas?: string;
}

/** A message about to run: from POST /api/chat, or from the queue (then with its queue id). */
export interface PendingTurn extends SendInput {
  queueId?: string;
}

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** Static route segments under /api/chat that a session id must not shadow. */
const RESERVED_IDS = new Set(['queue', 'mode', 'stop']);

export function checkSessionId(id: unknown): string {
  if (typeof id !== 'string' || !id) throw badRequest('sessionId is required: a name of letters, digits, dot, dash or underscore');
  if (id.length > LIMITS.chatSessionIdChars || !SESSION_ID.test(id) || RESERVED_IDS.has(id)) {
    throw badRequest(`sessionId "${id.slice(0, 60)}" is not valid; use up to ${LIMITS.chatSessionIdChars} letters, digits, dots, dashes or underscores (not queue, mode or stop)`);
  }
  return id;
}

export function parseSend(body: unknown): SendInput {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('send a JSON object {sessionId, message, context?, provider?, model?, images?, agent?, permissionMode?}');
  const b = body as Record<string, unknown>;
  const sessionId = checkSessionId(b.sessionId);
  if (typeof b.message !== 'string' || !b.message.trim()) throw badRequest('message is required: the text to send');
  if (b.message.length > LIMITS.chatMessageChars) throw badRequest(`message is too long (${b.message.length} characters); the limit is ${LIMITS.chatMessageChars}`);
  for (const key of ['provider', 'agent', 'dashboard', 'atlas'] as const) {
    if (b[key] !== undefined && b[key] !== null && typeof b[key] !== 'string') throw badRequest(`${key} must be a string (a name)`);
  }
  if (b.permissionMode !== undefined && b.permissionMode !== 'ask' && b.permissionMode !== 'allow') throw badRequest('permissionMode must be "ask" or "allow"');
  if (b.images !== undefined && (!Array.isArray(b.images) || b.images.length > LIMITS.chatImagesMax)) throw badRequest(`images must be an array of at most ${LIMITS.chatImagesMax} data URLs or {data, mediaType} objects`);
  const images = b.images as unknown[] | undefined;
  images?.forEach((img, i) => imagePart(img, i)); // validates now, so a bad image is a 400, not a failed turn
  return {
    sessionId,
    message: b.message,
    context: b.context ?? undefined,
    provider: (b.provider as string) || undefined,
    model: checkModelId(b.model),
    images,
    agent: (b.agent as string) || undefined,
    dashboard: (b.dashboard as string) || undefined,
    atlas: (b.atlas as string) || undefined,
    permissionMode: b.permissionMode as PermissionMode | undefined,
  };
}

const MODEL_ID = new RegExp(`^[^\\s\\x00-\\x1f\\x7f]{1,${LIMITS.chatModelIdChars}}$`);

/** A model id a session or a message picks (null, '' or absent: the provider's own model). */
export function checkModelId(model: unknown): string | undefined {
  if (model === undefined || model === null || model === '') return undefined;
  if (typeof model !== 'string' || !MODEL_ID.test(model)) {
    throw badRequest(`model must be a model id the provider serves, up to ${LIMITS.chatModelIdChars} characters without spaces (e.g. "llama3.1:8b"); leave it out to use the provider's own model`);
  }
  return model;
}

/** The user's message as the model gets it: context first (as text), then the message, then images. */
export function userMessage(input: SendInput): ModelMessage {
  let text = input.message;
  if (input.context !== undefined && input.context !== null && input.context !== '') {
    const ctx = typeof input.context === 'string' ? input.context : JSON.stringify(input.context, null, 2);
    text = `<context>\n${ctx}\n</context>\n\n${input.message}`;
  }
  if (!input.images?.length) return { role: 'user', content: text };
  const parts: Array<TextPart | ImagePart> = [{ type: 'text', text }];
  input.images.forEach((img, i) => parts.push(imagePart(img, i)));
  return { role: 'user', content: parts };
}

/** A data URL, an http(s) URL, or {data (base64 or data URL), mediaType}. */
function imagePart(img: unknown, i: number): ImagePart {
  const bad = () => badRequest(`images[${i}] must be a data URL (data:image/png;base64,...), an http(s) URL or {data, mediaType}`);
  let data: unknown = img;
  let mediaType: string | undefined;
  if (img && typeof img === 'object') {
    data = (img as { data?: unknown }).data;
    mediaType = typeof (img as { mediaType?: unknown }).mediaType === 'string' ? (img as { mediaType: string }).mediaType : undefined;
  }
  if (typeof data !== 'string' || !data) throw bad();
  const dataUrl = /^data:([^;,]+);base64,(.*)$/s.exec(data);
  if (dataUrl) return { type: 'image', image: dataUrl[2], mediaType: mediaType ?? dataUrl[1] };
  if (/^https?:\/\//.test(data)) return { type: 'image', image: new URL(data), mediaType };
  if (/^[A-Za-z0-9+/=\s]+$/.test(data)) return { type: 'image', image: data, mediaType: mediaType ?? 'image/png' };
  throw bad();
}

/** GET /api/chat/<id>?limit=&before=: a page of messages, or the whole list when no limit is given. */
export function parsePage(query: { limit?: string; before?: string }): { limit: number; before?: string } | undefined {
  if (query.limit === undefined) {
    if (query.before !== undefined) throw badRequest('before needs a limit: give limit (1 to ' + LIMITS.chatPageMax + ') to page back from a message');
    return undefined;
  }
  const limit = /^\d+$/.test(query.limit) ? Number(query.limit) : NaN;
  if (!(limit >= 1 && limit <= LIMITS.chatPageMax)) throw badRequest(`limit must be a whole number from 1 to ${LIMITS.chatPageMax}`);
  if (query.before !== undefined && !query.before) throw badRequest('before must be a message id from an earlier page');
  return { limit, ...(query.before !== undefined ? { before: query.before } : {}) };
}
