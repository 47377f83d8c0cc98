/**
 * Compaction: when a conversation nears the model's window, the older turns are summarised into
 * one message by a model call and the most recent turns are kept whole. Cuts fall only on turn
 * boundaries, so a tool call is never separated from its result.
 */
import type { generateText, ModelMessage } from 'ai';
import { LIMITS } from '../kernel/limits.js';
import { loadAi } from '../providers/sdk.js';

/** What one image counts for in the estimate: providers charge a screenshot-sized picture about 1 500 tokens, not its base64 length. */
const IMAGE_CHARS = 6_000;

/** A rough token count (4 characters a token): enough to decide when to compact. */
export function estimateTokens(messages: readonly ModelMessage[], system?: string): number {
  let chars = system?.length ?? 0;
  const countImage = (key: string, value: unknown) => {
    if (typeof value !== 'string' || value.length <= IMAGE_CHARS || (key !== 'data' && key !== 'image')) return value;
    chars += IMAGE_CHARS; // image bytes (a user's picture, browser_screenshot's result)
    return '';
  };
  for (const m of messages) {
    const text = JSON.stringify(m.content, countImage); // counts the images it leaves out first
    chars += text.length + 8;
  }
  return Math.ceil(chars / 4);
}

/**
 * The index of the first message to keep whole, or 0 when nothing can be compacted. A boundary is
 * a user message, or an assistant message right after tool results (a step of a long agentic turn).
 */
export function compactionCut(messages: readonly ModelMessage[], keepTurns: number): number {
  const userStarts = messages.flatMap((m, i) => (m.role === 'user' && i > 0 ? [i] : []));
  if (userStarts.length >= keepTurns) return userStarts[userStarts.length - keepTurns];
  // One long turn: cut between its steps, keeping the most recent ones.
  const steps = messages.flatMap((m, i) => (m.role === 'assistant' && i > 1 && messages[i - 1].role === 'tool' ? [i] : []));
  const keepSteps = Math.max(2, keepTurns);
  if (steps.length > keepSteps) return steps[steps.length - keepSteps];
  return 0;
}

export const SUMMARY_PREFIX = '[Summary of the earlier conversation, written when the context grew long]';

export function summaryMessage(summary: string): ModelMessage {
  return { role: 'user', content: `${SUMMARY_PREFIX}\n${summary}` };
}

const SUMMARY_SYSTEM =
  'You compress a conversation between a user and an AI assistant that uses tools. Write a faithful summary that lets the ' +
  'assistant continue the work: the user\'s goals and constraints, decisions made, files and names involved, tool results ' +
  'that still matter, and what remains to do. Plain prose and short lists. No preamble.';

/** Renders messages as plain text for the summariser (tool results clipped). */
export function renderTranscript(messages: readonly ModelMessage[]): string {
  const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n) + '…' : s);
  const lines: string[] = [];
  for (const m of messages) {
    if (typeof m.content === 'string') {
      lines.push(`${m.role}: ${clip(m.content, LIMITS.compactMessageChars)}`);
      continue;
    }
    for (const part of m.content as Array<Record<string, any>>) {
      if (part.type === 'text') lines.push(`${m.role}: ${clip(String(part.text), LIMITS.compactMessageChars)}`);
      else if (part.type === 'tool-call') lines.push(`${m.role} called ${part.toolName} ${clip(JSON.stringify(part.input ?? {}), LIMITS.compactToolArgsChars)}`);
      else if (part.type === 'tool-result') lines.push(`result of ${part.toolName}: ${clip(resultText(part.output), LIMITS.compactToolResultChars)}`);
      else if (part.type === 'image' || part.type === 'file') lines.push(`${m.role}: [attachment]`);
    }
  }
  return lines.join('\n');
}

/** A tool result as text: its text parts, an image named (browser_screenshot). */
/** A tool result's text as people and the summariser read it (an image is `[image]`). */
export function resultText(output: { type?: string; value?: unknown } | undefined): string {
  if (output?.type !== 'content' || !Array.isArray(output.value)) return String(output?.value ?? '');
  return output.value.map((p: { type: string; text?: string }) => (p.type === 'text' ? p.text : '[image]')).join(' ');
}

export async function summarise(
  model: Parameters<typeof generateText>[0]['model'],
  older: readonly ModelMessage[],
  signal: AbortSignal,
): Promise<{ text: string; usage: Awaited<ReturnType<typeof generateText>>['usage'] }> {
  const { generateText } = await loadAi();
  const result = await generateText({
    model,
    system: SUMMARY_SYSTEM,
    prompt: `Summarise this conversation:\n\n${renderTranscript(older)}`,
    maxOutputTokens: LIMITS.compactSummaryMaxTokens,
    maxRetries: 0,
    abortSignal: signal,
  });
  return { text: result.text.trim(), usage: result.usage };
}
