/** What the workflow benches share: a temp home, an engine on it, a run to its end. */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEngine, type Engine } from '../src/engine.js';

const RUN_END = /^run\.(completed|failed|stopped)$/;
export const tmp = () => mkdtemp(path.join(os.tmpdir(), 'wf-bench-'));

export async function engineAt(home: string): Promise<Engine> {
  return startEngine({ home, port: 0, log: () => undefined, secretsBackend: 'file', files: { watch: false } });
}

/** Starts a run and resolves when it has ended (subscribed first: a short run can end before start() returns). */
export async function runOnce(engine: Engine, workflowId: string, payload?: unknown): Promise<void> {
  let runId: string | undefined;
  const ended = new Set<string>();
  let wake: () => void = () => undefined;
  const off = engine.bus.subscribe((e) => {
    // Cheap first test: this listener sees every event of the measured run.
    if (e.runId && e.kind.startsWith('run.') && RUN_END.test(e.kind)) {
      if (e.kind !== 'run.completed') throw new Error(`bench run ended ${e.kind}: ${String(e.error)}`);
      ended.add(e.runId);
      wake();
    }
  });
  runId = await engine.workflows.start({ workflowId, source: 'manual', attended: false, payload });
  while (!ended.has(runId)) await new Promise<void>((r) => (wake = r));
  off();
}

export function waitEnd(engine: Engine, runId: string): Promise<void> {
  return new Promise((resolve) => {
    const off = engine.bus.subscribe((e) => {
      if (e.runId === runId && RUN_END.test(e.kind)) {
        off();
        if (e.kind !== 'run.completed') throw new Error(`bench run ended ${e.kind}: ${String(e.error)}`);
        resolve();
      }
    });
  });
}
