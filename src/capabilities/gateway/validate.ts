/** The request checks of POST /v1/chat/completions: one sentence saying what to fix, in OpenAI's shape. */
import { invalidRequest } from './errors.js';
import type { ChatCompletionRequest } from './types.js';

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);
const NUMBERS = ['max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'presence_penalty', 'frequency_penalty', 'seed'] as const;

export function validateCompletion(body: unknown): ChatCompletionRequest {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalidRequest('send a JSON object {model, messages: [{role, content}], ...}');
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string' || !b.model.trim()) throw invalidRequest('model is required: "default", a provider name from GET /v1/models, or "<provider>/<model id>"', 'model_not_found');
  if (!Array.isArray(b.messages) || b.messages.length === 0) throw invalidRequest('messages must be a non-empty array of {role, content}');
  b.messages.forEach((m, i) => {
    if (!m || typeof m !== 'object' || Array.isArray(m)) throw invalidRequest(`messages[${i}] must be an object {role, content}`);
    const role = (m as { role?: unknown }).role;
    if (typeof role !== 'string' || !ROLES.has(role)) throw invalidRequest(`messages[${i}].role must be one of system, developer, user, assistant, tool`);
  });
  if (b.stream !== undefined && b.stream !== null && typeof b.stream !== 'boolean') throw invalidRequest('stream must be true or false');
  if (b.stream_options != null && (typeof b.stream_options !== 'object' || Array.isArray(b.stream_options))) throw invalidRequest('stream_options must be an object such as {"include_usage": true}');
  if (b.tools != null && !Array.isArray(b.tools)) throw invalidRequest('tools must be an array of {type: "function", function: {name, description?, parameters?}}');
  for (const name of NUMBERS) {
    const v = b[name];
    if (v != null && (typeof v !== 'number' || !Number.isFinite(v))) throw invalidRequest(`${name} must be a number`);
  }
  if (b.stop != null && typeof b.stop !== 'string' && !(Array.isArray(b.stop) && b.stop.every((s) => typeof s === 'string'))) throw invalidRequest('stop must be a string or an array of strings');
  return b as ChatCompletionRequest;
}
