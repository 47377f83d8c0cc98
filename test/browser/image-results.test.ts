/** browser_screenshot's image result in the conversation: counted like an image, not like its base64, and named in a compaction transcript. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelMessage } from 'ai';
import { estimateTokens, renderTranscript } from '../../src/agent/compaction.js';
import { hasCardNumber } from '../../src/capabilities/browser/tools.js';

const screenshot: ModelMessage = {
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'browser_screenshot', output: { type: 'content', value: [{ type: 'text', text: 'screenshot of tab 5' }, { type: 'image-data', data: 'A'.repeat(200_000), mediaType: 'image/jpeg' }] } }],
};

test('an image result counts about 1 500 tokens, not its 200 000 base64 characters', () => {
  const tokens = estimateTokens([screenshot]);
  assert.ok(tokens > 1_400 && tokens < 1_700, `estimated ${tokens}`);
});

test('a compaction transcript shows the text of an image result and names the image', () => {
  assert.equal(renderTranscript([screenshot]), 'result of browser_screenshot: screenshot of tab 5 [image]');
});

test('card numbers are recognised by the Luhn check, with spaces or dashes, and only whole', () => {
  assert.ok(hasCardNumber('4111 1111 1111 1111'));
  assert.ok(hasCardNumber('card: 5500-0000-0000-0004.'));
  assert.ok(!hasCardNumber('4111 1111 1111 1112'), 'fails the check');
  assert.ok(!hasCardNumber('order 41111111111111110'), 'part of a longer number');
  assert.ok(!hasCardNumber('call 555 0100'));
});
