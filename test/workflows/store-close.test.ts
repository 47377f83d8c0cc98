/**
 * The workflow store's close (issue 41): a reload under way when the engine closes ends before close
 * returns, none starts after, and reading the definitions never makes their folder (a reload that
 * outlived the engine re-made `workflows/` in a home being removed: map-depth's ENOTEMPTY, named by
 * the tests' cleanup under --stress 3).
 */
import assert from 'node:assert/strict';
import { readdir, rm } from 'node:fs/promises';
import { test } from 'node:test';
import { FileWorkflowBackend } from '../../src/capabilities/workflows/files.js';
import { WorkflowStore } from '../../src/capabilities/workflows/store.js';
import type { StoredWorkflow, WorkflowBackend } from '../../src/capabilities/workflows/types.js';
import { Home } from '../../src/kernel/home.js';
import { tempDir } from '../support/engine.js';

test('close waits for a reload under way and no reload starts after it', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let lists = 0;
  let reading!: () => void;
  const read = new Promise<void>((r) => (reading = r));
  const backend = {
    watch: () => undefined,
    async list(): Promise<StoredWorkflow[]> {
      lists++;
      if (lists === 2) {
        reading();
        await gate; // the reload after init: held, like a slow disk
      }
      return [];
    },
    close: () => undefined,
  } as unknown as WorkflowBackend;
  const store = new WorkflowStore({ backend, emit: () => undefined, history: () => undefined, log: () => undefined, validateContext: { workflowIds: () => [], toolNames: () => [] } });
  await store.init();
  const reloading = store.reloadAll();
  await read;
  let closed = false;
  const closing = store.close().then(() => (closed = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(closed, false, 'close returned while a reload was still reading');
  release();
  await closing;
  await reloading;
  assert.deepEqual(await store.reloadAll(), []);
  assert.equal(lists, 2, 'no reload after close');
});

test('listing the definitions of a home without a workflows folder makes none', async () => {
  const dir = await tempDir();
  try {
    const backend = new FileWorkflowBackend({ home: new Home(dir), provenance: {} as never, log: () => undefined });
    assert.deepEqual(await backend.list(), []);
    assert.deepEqual(await readdir(dir), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
