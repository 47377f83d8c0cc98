/**
 * OpenAI chat messages -> the AI SDK's model messages, for upstreams the gateway translates
 * (Anthropic, and local models later). Content parts flatten to text plus images; tool calls and
 * tool results keep their ids so a caller's tool loop round-trips.
 */
import type { ModelMessage } from 'ai';
import { invalidRequest } from './errors.js';
import type { ChatMessage, ContentPart } from './types.js';

export interface Translated {
  system?: string;
  messages: ModelMessage[];
}

export function toModelMessages(input: ChatMessage[]): Translated {
  const system: string[] = [];
  const messages: ModelMessage[] = [];
  const toolNames = new Map<string, string>();
  input.forEach((m, i) => {
    switch (m.role) {
      case 'system':
      case 'developer':
        // Anthropic takes one system prompt: system messages anywhere are gathered in order.
        system.push(textOf(m.content, i));
        break;
      case 'user': {
        const parts = partsOf(m.content, i);
        messages.push({ role: 'user', content: parts.length === 1 && parts[0].type === 'text' ? parts[0].text : parts });
        break;
      }
      case 'assistant': {
        const content: any[] = [];
        const text = m.content == null ? '' : textOf(m.content, i);
        if (text) content.push({ type: 'text', text });
        for (const call of m.tool_calls ?? []) {
          if (!call?.id || !call.function?.name) throw invalidRequest(`messages[${i}].tool_calls needs an id and function.name on every call`);
          toolNames.set(call.id, call.function.name);
          content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.function.name, input: parseArguments(call.function.arguments, i) });
        }
        messages.push({ role: 'assistant', content });
        break;
      }
      case 'tool': {
        if (!m.tool_call_id) throw invalidRequest(`messages[${i}] (role tool) needs tool_call_id, the id of the call it answers`);
        const toolName = toolNames.get(m.tool_call_id);
        if (!toolName) throw invalidRequest(`messages[${i}] answers tool call "${m.tool_call_id}", which no earlier assistant message made`);
        messages.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: m.tool_call_id, toolName, output: { type: 'text', value: textOf(m.content, i) } }] });
        break;
      }
      default:
        throw invalidRequest(`messages[${i}].role "${String((m as { role?: unknown }).role)}" is not one of system, developer, user, assistant, tool`);
    }
  });
  return { system: system.length ? system.join('\n\n') : undefined, messages };
}

function textOf(content: ChatMessage['content'], i: number): string {
  if (typeof content === 'string') return content;
  if (content == null) return '';
  return partsOf(content, i)
    .filter((p): p is { type: 'text'; text: string } => p.type === 'text')
    .map((p) => p.text)
    .join('\n');
}

type UserPart = { type: 'text'; text: string } | { type: 'image'; image: URL | string; mediaType?: string };

function partsOf(content: ChatMessage['content'], i: number): UserPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw invalidRequest(`messages[${i}].content must be a string or an array of content parts`);
  const parts: UserPart[] = [];
  for (const part of content as ContentPart[]) {
    if (part?.type === 'text' && typeof (part as { text?: unknown }).text === 'string') parts.push({ type: 'text', text: (part as { text: string }).text });
    else if (part?.type === 'image_url') parts.push(imagePart((part as { image_url?: { url?: unknown } }).image_url?.url, i));
    else throw invalidRequest(`messages[${i}].content has a part of type "${String(part?.type)}"; this upstream takes text and image_url parts`);
  }
  return parts;
}

function imagePart(url: unknown, i: number): UserPart {
  if (typeof url !== 'string' || !url) throw invalidRequest(`messages[${i}] has an image_url part without image_url.url`);
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (data) return { type: 'image', image: data[2], mediaType: data[1] };
  try {
    return { type: 'image', image: new URL(url) };
  } catch {
    throw invalidRequest(`messages[${i}] has an image_url that is neither a data: URL nor an http(s) URL`);
  }
}

function parseArguments(args: unknown, i: number): unknown {
  if (typeof args !== 'string' || !args.trim()) return {};
  try {
    return JSON.parse(args);
  } catch {
    throw invalidRequest(`messages[${i}].tool_calls has arguments that are not valid JSON`);
  }
}
