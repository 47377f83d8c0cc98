/**
 * Issue 26: a pasted Claude Desktop `mcpServers` map is taken whatever its keys: a key that is not a
 * valid server name gets a name derived from it (the tool prefix), and the answer says which.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestEngine } from '../support/engine.js';

test('any key is accepted; invalid ones get a derived name, said in renamed', async () => {
  const t = await startTestEngine();
  try {
    const res = await t.api('PUT', '/api/mcp', {
      mcpServers: {
        'brave-search': { command: 'npx', args: ['-y', 'brave'], enabled: false },
        my_server: { command: 'node', args: ['server.js'], enabled: false },
        'Brave Search': { command: 'npx', args: ['-y', 'other'], enabled: false },
        'brave search!': { command: 'npx', enabled: false },
        '@scope/pkg': { url: 'https://example.com/mcp', enabled: false },
        'ünïcode': { command: 'x', enabled: false },
      },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.renamed, {
      my_server: 'my-server',
      'Brave Search': 'Brave-Search',
      'brave search!': 'brave-search-2',
      '@scope/pkg': 'scope-pkg',
      'ünïcode': 'n-code',
    });
    assert.deepEqual(Object.keys(res.body.servers).sort(), ['Brave-Search', 'brave-search', 'brave-search-2', 'my-server', 'n-code', 'scope-pkg']);
    assert.deepEqual(res.body.servers['my-server'].args, ['server.js']);
    // A bad entry is still a 400 with its sentence, named by the name it would have had.
    const bad = await t.api('PUT', '/api/mcp', { mcpServers: { 'a b': { args: [] } } });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /servers\.a-b needs a command/);
  } finally {
    await t.close();
  }
});
