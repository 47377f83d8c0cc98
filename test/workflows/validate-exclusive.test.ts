/**
 * Issue 26: the validator refuses two writers of a replace key on parallel branches, but not on the
 * approved and rejected branches of one gate (or the true and false of a condition): those never
 * both run.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateWorkflow } from '../../src/capabilities/workflows/validate.js';

const doc = (nodes: unknown[], edges: unknown[]) => ({ id: 'w', formatVersion: 2, group: null, nodes, edges });
const write = (id: string, value: string) => ({ id, type: 'state', config: { key: 'verdict', value } });

test('a gate whose approved and rejected branches write the same key is accepted', () => {
  const r = validateWorkflow(
    doc(
      [{ id: 'start', type: 'trigger.manual' }, { id: 'review', type: 'gate' }, write('yes', 'approved'), write('no', 'rejected'), { id: 'tell', type: 'notify', config: { title: '{{state.verdict}}' } }],
      [
        { from: 'start', to: 'review' },
        { from: 'review', to: 'yes', when: 'approved' },
        { from: 'review', to: 'no', when: 'rejected' },
        { from: 'yes', to: 'tell' },
        { from: 'no', to: 'tell' },
      ],
    ),
  );
  assert.deepEqual(r.errors, []);
  assert.equal(r.ok, true);
});

test('a condition with an edge without when (its true branch) and a false edge is accepted too', () => {
  const r = validateWorkflow(
    doc(
      [{ id: 'start', type: 'trigger.manual' }, { id: 'big', type: 'condition', config: { expr: 'trigger.n > 1' } }, write('a', 'big'), write('b', 'small')],
      [
        { from: 'start', to: 'big' },
        { from: 'big', to: 'a' },
        { from: 'big', to: 'b', when: 'false' },
      ],
    ),
  );
  assert.deepEqual(r.errors, []);
});

test('writers on parallel branches are still refused', () => {
  const parallel = validateWorkflow(doc([{ id: 'start', type: 'trigger.manual' }, write('a', '1'), write('b', '2')], [{ from: 'start', to: 'a' }, { from: 'start', to: 'b' }]));
  assert.match(parallel.errors.join('\n'), /nodes "a" and "b" both write the replace key "verdict" on parallel branches/);
});
