/**
 * A run's log read two ways. `stepsOf`: its steps, as a person asks "what ran, how long, what came
 * out": a workflow's nodes (their retries, a gate's decision, the tool calls of an agent node inside
 * it), or the tool calls of a chat turn or a build. `logRows`: the raw log with each stream (an
 * answer's tokens, a command's output) joined into one row.
 */
import type { EngineEvent } from '../sync';
import { short } from '../ui';

export interface Step {
  key: string;
  id: string;
  type?: string;
  /** As its events say; a step the ended run left running or waiting takes the run's end (stopped, interrupted). */
  status: string;
  start?: number;
  end?: number;
  /** What it was asked (a tool call's arguments). */
  detail?: string;
  output?: string;
  error?: string;
  retries: number;
  retryErrors: string[];
  gate?: { message?: string; approved?: boolean; note?: string };
  children: Step[];
}

const text = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v, null, 2));

/** A tool call's arguments in a line: the command, the path, else the JSON. */
function argsLine(args: any): string {
  if (!args || typeof args !== 'object') return text(args);
  for (const k of ['command', 'path', 'url', 'query', 'sql', 'pattern']) if (typeof args[k] === 'string') return args[k];
  return short(JSON.stringify(args), 200);
}

export function stepsOf(events: EngineEvent[], runEnded?: string): Step[] {
  const nodes = new Map<string, Step>();
  const calls = new Map<string, Step>();
  const top: Step[] = [];
  const step = (id: string, e: EngineEvent): Step => {
    let s = nodes.get(id);
    if (!s) {
      s = { key: `node:${id}`, id, status: 'running', retries: 0, retryErrors: [], children: [], start: e.ts };
      nodes.set(id, s);
      top.push(s);
    }
    return s;
  };
  for (const e of events) {
    const k = e.kind;
    if (k === 'node.started') {
      const s = step(e.nodeId, e);
      Object.assign(s, { type: e.type, status: 'running', start: e.ts, end: undefined, error: undefined });
    } else if (k === 'node.delta' && e.nodeId && typeof e.text === 'string') {
      const s = step(e.nodeId, e);
      s.output = (s.output ?? '') + e.text;
    } else if (k === 'node.completed' && e.nodeId) {
      const s = step(e.nodeId, e);
      Object.assign(s, { status: 'completed', end: e.ts, output: e.output === undefined ? s.output : text(e.output) });
    } else if (k === 'node.failed' && e.nodeId) {
      Object.assign(step(e.nodeId, e), { status: 'failed', end: e.ts, error: e.error });
    } else if (k === 'node.skipped' && e.nodeId) {
      Object.assign(step(e.nodeId, e), { status: 'skipped', end: e.ts });
    } else if (k === 'node.retry' && e.nodeId) {
      const s = step(e.nodeId, e);
      s.retries++;
      s.retryErrors.push(e.error);
    } else if (k === 'gate.waiting' && e.nodeId) {
      const s = step(e.nodeId, e);
      s.status = 'waiting';
      s.gate = { message: e.message };
    } else if (k === 'gate.resolved' && e.nodeId) {
      const s = step(e.nodeId, e);
      s.gate = { ...s.gate, approved: e.approved, note: e.note };
    } else if (k === 'tool.call' && e.callId) {
      const c: Step = { key: `call:${e.callId}`, id: e.tool, status: 'running', start: e.ts, detail: argsLine(e.args), retries: 0, retryErrors: [], children: [] };
      calls.set(e.callId, c);
      // A call inside an agent node belongs to that node; a chat's or a build's calls are the steps.
      if (e.nodeId) step(e.nodeId, e).children.push(c);
      else top.push(c);
    } else if (k === 'tool.result' && e.callId) {
      const c = calls.get(e.callId);
      if (!c) continue;
      c.end = e.ts;
      c.status = e.ok === false ? 'failed' : 'completed';
      if (e.ok === false) c.error = text(e.result);
      else c.output = text(e.result);
    } else if (k === 'shell.output' && e.callId) {
      const c = calls.get(e.callId);
      if (c && c.status === 'running') c.output = (c.output ?? '') + text(e.text ?? e.chunk ?? e.data);
    }
  }
  if (runEnded) {
    const settle = (s: Step) => {
      if (s.status === 'running' || s.status === 'waiting') s.status = runEnded === 'completed' ? 'completed' : runEnded;
      s.children.forEach(settle);
    };
    top.forEach(settle);
  }
  return top;
}

export interface LogRow {
  seq: number;
  ts: number;
  kind: string;
  count: number;
  text: string;
}

/** Streams whose events join into one row while they follow each other (same kind, same node or call). */
const STREAMS = new Set(['node.delta', 'chat.delta', 'chat.reasoning', 'shell.output']);

export function logRows(events: EngineEvent[]): LogRow[] {
  const rows: LogRow[] = [];
  let last: (LogRow & { of: string }) | undefined;
  for (const e of events) {
    const of = `${e.kind}|${e.nodeId ?? ''}|${e.callId ?? ''}`;
    if (STREAMS.has(e.kind) && last?.of === of) {
      last.count++;
      last.text += typeof e.text === 'string' ? e.text : '';
      continue;
    }
    const row = { seq: e.seq, ts: e.ts, kind: e.kind, count: 1, text: describe(e), of };
    rows.push(row);
    last = STREAMS.has(e.kind) ? row : undefined;
  }
  return rows;
}

/** One event in a line: what it is about, then its other fields as `name: value`. */
function describe(e: EngineEvent): string {
  const { kind: _k, ts: _t, seq: _s, runId: _r, ...rest } = e;
  if (STREAMS.has(e.kind) && typeof e.text === 'string') return `${e.nodeId ? `${e.nodeId}: ` : ''}${e.text}`;
  if (e.kind === 'tool.call') return `${e.tool} ${argsLine(e.args)}`;
  if (e.kind === 'tool.result') return `${e.tool} ${e.ok === false ? 'failed' : 'ok'}${e.durationMs !== undefined ? ` in ${e.durationMs} ms` : ''}: ${short(text(e.result), 300)}`;
  const head = e.nodeId ? `${e.nodeId}${e.error ? `: ${e.error}` : e.output !== undefined ? ` → ${short(text(e.output), 200)}` : ''}` : '';
  const more = Object.entries(rest)
    .filter(([k, v]) => !(e.nodeId && ['nodeId', 'error', 'output'].includes(k)) && v !== undefined)
    .map(([k, v]) => `${k}: ${short(typeof v === 'string' ? v : JSON.stringify(v), 120)}`)
    .join(' · ');
  return [head, more].filter(Boolean).join(' · ');
}
