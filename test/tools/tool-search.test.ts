/** The tool index behind tool_search and the compact form of a definition (issue 33). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compactTool, firstSentence } from '../../src/tools/compact.js';
import { ToolIndex } from '../../src/tools/search.js';
import { defineTool, type AnyTool } from '../../src/tools/types.js';

const tool = (name: string, description: string, properties: Record<string, unknown> = {}): AnyTool =>
  defineTool({ name, group: 'test', description, parameters: { type: 'object', properties }, permission: 'other', run: async () => '' });

const TOOLS = [
  tool('read_file', 'Read a text file. Lines are numbered.', { path: { type: 'string', description: 'virtual file path' } }),
  tool('work_create', 'Create a work item on a board.', { project: { type: 'string' }, title: { type: 'string' } }),
  tool('db_query', 'Runs SQL on a saved connection.', { connection: { type: 'string' }, sql: { type: 'string' } }),
  tool('send_mail', 'Sends an email message.', { recipient: { type: 'string', description: 'who gets it; an address' } }),
];

describe('tool search', () => {
  const index = new ToolIndex(TOOLS);
  it('finds by words of the name, the description and the parameter names, plurals folded', () => {
    assert.equal(index.search('work items', 5)[0].name, 'work_create');
    assert.equal(index.search('sql', 5)[0].name, 'db_query');
    assert.equal(index.search('recipient', 5)[0].name, 'send_mail');
    assert.equal(index.search('db_query', 5)[0].name, 'db_query');
  });
  it('leaves out tools that share no word with the query and honours the limit', () => {
    assert.deepEqual(index.search('kubernetes pods', 5), []);
    assert.equal(index.search('a file board sql email', 2).length, 2);
  });
});

describe('compact form', () => {
  it('keeps the first sentence and drops a parameter description that repeats the name', () => {
    const read = compactTool(TOOLS[0]);
    assert.equal(read.description, 'Read a text file.');
    assert.deepEqual(read.parameters, { type: 'object', properties: { path: { type: 'string' } } });
    assert.equal(TOOLS[0].parameters.properties && (TOOLS[0].parameters.properties as any).path.description, 'virtual file path', 'the original is untouched');
    const mail = compactTool(TOOLS[3]);
    assert.equal((mail.parameters.properties as any).recipient.description, 'who gets it', 'cut to its first clause');
  });
  it('cuts a long first sentence at its first clause', () => {
    assert.equal(firstSentence('Change a work item: status (a lane), title, body, assignee, labels, estimate, priority, rank, fields, archived and more besides.'), 'Change a work item.');
  });
});
