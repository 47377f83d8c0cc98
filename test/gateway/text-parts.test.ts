/**
 * Issue 26: a message's text parts reach a local model as separate lines, not glued together
 * (`["Hello", "world"]` was "Helloworld"). The AI SDK prompt the gateway builds goes through
 * templateMessages before the chat template.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toModelMessages } from '../../src/capabilities/gateway/messages.js';
import { templateMessages } from '../../src/providers/local.js';

test('text parts of a user message, an assistant message and a tool result are joined with a separator', () => {
  const { messages } = toModelMessages([
    { role: 'user', content: [{ type: 'text', text: 'Hello' }, { type: 'text', text: 'world' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'First part.' }, { type: 'text', text: 'Second part.' }] } as never,
  ]);
  const out = templateMessages({ prompt: messages as never } as never);
  assert.equal(out[0].content, 'Hello\nworld');
  assert.equal(out[1].content, 'First part.\nSecond part.');
  const tool = templateMessages({
    prompt: [
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'look', input: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'look', output: { type: 'content', value: [{ type: 'text', text: 'line one' }, { type: 'text', text: 'line two' }] } }] },
    ],
  } as never);
  assert.equal(tool[0].content, '', 'a tool call alone adds no text');
  assert.equal(tool[1].content, 'line one\nline two');
});
