/**
 * A test engine with one generated model already downloaded from the loopback hub (HF_ENDPOINT
 * points at it while the engine lives): the set-up every test of a local model or local embedder
 * starts from. `close()` undoes all of it.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { startTestEngine, tempDir, type TestEngine } from './engine.js';
import { collectEvents, type EventCollector } from './events.js';
import { startFakeHub, type FakeHub } from './fake-hub.js';

export interface LocalModelEngine {
  t: TestEngine;
  events: EventCollector;
  hub: FakeHub;
  close(): Promise<void>;
}

export async function engineWithLocalModel(opts: {
  repo: string;
  /** Writes the model's files under the given folder and says where they are. */
  write: (dir: string) => { dir: string };
  prefix: string;
  dtype?: string;
  timeoutMs?: number;
}): Promise<LocalModelEngine> {
  const dir = await tempDir(opts.prefix);
  const model = opts.write(path.join(dir, 'src', opts.repo));
  const hub = await startFakeHub({ [opts.repo]: { dir: model.dir } });
  process.env.HF_ENDPOINT = hub.url;
  const t = await startTestEngine();
  const events = await collectEvents(t.url);
  const close = async () => {
    delete process.env.HF_ENDPOINT;
    events.close();
    await t.close();
    await hub.close();
    await rm(dir, { recursive: true, force: true });
  };
  const dl = await t.api('POST', '/api/models/download', { repo: opts.repo, ...(opts.dtype ? { dtype: opts.dtype } : {}) });
  if (dl.status !== 202) {
    await close();
    throw new Error(`the download was refused: ${JSON.stringify(dl.body)}`);
  }
  await events.waitFor((e) => e.kind === 'model.download.completed' && e.id === dl.body.id, opts.timeoutMs ?? 60_000);
  return { t, events, hub, close };
}
