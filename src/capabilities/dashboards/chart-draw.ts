/**
 * Charts are drawn in a worker thread (chart-worker.ts), one at a time, each within a time budget
 * (LIMITS.chartDrawMs) and the worker's heap cap (LIMITS.chartHeapMb). A chart that exceeds either
 * stops the worker and fails with a ChartLimitError naming the limit; the engine's own thread never
 * runs vega, so a costly chart (or one that would never end) cannot stop the API. The budget
 * starts when the chart is handed to a worker that has loaded vega, so a slow start counts against
 * no chart. A worker with nothing to draw exits after LIMITS.chartWorkerIdleMs.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { LIMITS } from '../../kernel/limits.js';
import { CHART_WORKER_SOURCE } from './chart-worker.js';

/** A chart stopped for exceeding a limit: drawing it again would only spend that limit again. */
export class ChartLimitError extends Error {}

const TIME = `this chart took longer than ${LIMITS.chartDrawMs / 1000} s to draw (the engine's limit for one chart) and was stopped; aggregate the data or draw fewer marks`;
const HEAP = `this chart needed more than ${LIMITS.chartHeapMb} MB of memory to draw (the engine's limit for one chart) and was stopped; aggregate the data or draw fewer marks`;

interface Job {
  id: number;
  spec: Record<string, unknown>;
  width: number;
  height: number;
  resolve: (svg: string) => void;
  reject: (err: Error) => void;
}
type Reply = { ready: true } | { id: number; svg?: string; error?: string };

const resolveModule = createRequire(import.meta.url).resolve;
let worker: Worker | undefined;
let ready = false;
let current: { job: Job; timer: NodeJS.Timeout } | undefined;
let startTimer: NodeJS.Timeout | undefined;
let idleTimer: NodeJS.Timeout | undefined;
const queue: Job[] = [];
let nextId = 1;

/** Draws one chart (a Vega-Lite spec with its rows) as SVG in the chart worker. */
export function drawChart(spec: Record<string, unknown>, width: number, height = 180): Promise<string> {
  return new Promise((resolve, reject) => {
    queue.push({ id: nextId++, spec, width, height, resolve, reject });
    pump();
  });
}

function pump(): void {
  if (current) return;
  if (!queue.length) return idle();
  if (idleTimer) clearTimeout(idleTimer);
  const w = worker ?? start();
  if (!ready) return;
  const job = queue.shift()!;
  const timer = setTimeout(() => stop(w, new ChartLimitError(TIME)), LIMITS.chartDrawMs);
  current = { job, timer };
  w.ref(); // a chart being drawn keeps the process alive; an idle worker does not
  w.postMessage({ id: job.id, spec: job.spec, width: job.width, height: job.height });
}

function start(): Worker {
  const w = new Worker(CHART_WORKER_SOURCE, {
    eval: true,
    workerData: { vega: resolveModule('vega'), vegaLite: resolveModule('vega-lite') },
    resourceLimits: { maxOldGenerationSizeMb: LIMITS.chartHeapMb },
  });
  worker = w;
  ready = false;
  startTimer = setTimeout(() => stop(w, new Error(`the chart worker did not start within ${LIMITS.chartWorkerStartMs / 1000} s`)), LIMITS.chartWorkerStartMs);
  w.on('message', (reply: Reply) => {
    if (worker !== w) return;
    if ('ready' in reply) {
      clearTimeout(startTimer);
      ready = true;
      return pump();
    }
    if (!current || current.job.id !== reply.id) return;
    const { job, timer } = current;
    clearTimeout(timer);
    current = undefined;
    if (reply.svg !== undefined) job.resolve(reply.svg);
    else job.reject(new Error(reply.error ?? 'the chart could not be drawn'));
    pump();
  });
  w.on('error', (err: Error & { code?: string }) => stop(w, err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new ChartLimitError(HEAP) : new Error(`the chart worker failed: ${err.message}`)));
  w.on('exit', () => stop(w, new Error('the chart worker stopped')));
  return w;
}

/**
 * Ends worker `w` (its heap goes with it): the chart it was drawing fails with `err`, and the
 * queue goes on in a new worker; when the worker could not even start, the queue fails too.
 */
function stop(w: Worker, err: Error): void {
  if (worker !== w) return;
  const failQueue = !ready;
  worker = undefined;
  ready = false;
  clearTimeout(startTimer);
  void w.terminate();
  if (current) {
    clearTimeout(current.timer);
    current.job.reject(err);
    current = undefined;
  }
  if (failQueue) for (const job of queue.splice(0)) job.reject(err);
  pump();
}

function idle(): void {
  worker?.unref();
  if (idleTimer) clearTimeout(idleTimer);
  const w = worker;
  if (!w) return;
  idleTimer = setTimeout(() => {
    if (worker !== w || current || queue.length) return;
    worker = undefined;
    ready = false;
    void w.terminate();
  }, LIMITS.chartWorkerIdleMs);
  idleTimer.unref();
}
