/**
 * Seed 001 §1 and docs/mcp.md: an MCP tool runs serially even when its server marks it read-only;
 * built-in read-only tools of one batch run side by side.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mcpTool } from '../../src/capabilities/mcp/tools.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { defineTool } from '../../src/tools/types.js';

function tracker() {
  let now = 0;
  let max = 0;
  return {
    async work() {
      max = Math.max(max, ++now);
      await new Promise((r) => setTimeout(r, 30));
      now--;
    },
    get max() {
      return max;
    },
  };
}

const ctx = { signal: new AbortController().signal, emit: () => undefined, attended: false };

test('read-only MCP tools run one at a time; read-only built-in tools run together', async () => {
  const mcp = tracker();
  const client = { callTool: async () => (await mcp.work(), { content: [{ type: 'text', text: 'ok' }] }) } as unknown as Client;
  const registry = new ToolRegistry();
  registry.register(mcpTool('srv', { name: 'look', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }, 'srv_look', () => client));
  const builtIn = tracker();
  registry.register(defineTool({ name: 'peek', group: 'test', readOnly: true, description: 'reads', parameters: { type: 'object' }, permission: 'other', run: async () => (await builtIn.work(), 'ok') }));

  const mcpOut = await registry.runBatch([1, 2, 3, 4].map((i) => ({ callId: `m${i}`, name: 'srv_look', args: {} })), ctx);
  assert.ok(mcpOut.every((o) => !o.isError), JSON.stringify(mcpOut));
  assert.equal(mcp.max, 1, 'MCP calls overlapped');
  await registry.runBatch([1, 2, 3, 4].map((i) => ({ callId: `b${i}`, name: 'peek', args: {} })), ctx);
  assert.ok(builtIn.max > 1, 'built-in read-only calls ran one at a time');
});
