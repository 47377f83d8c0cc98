/**
 * The page's copy of the engine's live state, kept by the seed's catch-up order on every (re)connect
 * (seed 000 §4.21): GET /api/status; GET /api/runs and the log of each run in flight; GET /api/gates,
 * the waiting permission prompts and GET /api/notifications; then the /events socket. Events apply
 * by `seq`: each run remembers the highest seq applied, so an event seen in a run's log and again on
 * the socket is applied once. A restarted engine closes the socket (and starts its counter again):
 * the page reconnects by itself and rebuilds its state from the catch-up, never merging old with new.
 */
import { batch, signal } from '@preact/signals';
import { get, socketUrl, transport } from './api';

export interface EngineEvent {
  kind: string;
  seq: number;
  ts: number;
  runId?: string;
  [k: string]: any;
}

export interface Run {
  runId: string;
  status: string;
  startedAt: number;
  endedAt?: number;
  source?: string;
  workflowId?: string;
  sessionId?: string;
  title?: string;
  error?: string;
  [k: string]: any;
}

export interface Gate {
  key: string;
  runId: string;
  nodeId: string;
  workflowId?: string;
  message?: string;
  since?: number;
  orphaned?: boolean;
  [k: string]: any;
}

export interface Prompt {
  runId: string;
  callId: string;
  tool: string;
  class?: string;
  key?: string;
  display?: string;
  sessionId?: string;
  [k: string]: any;
}

export type Connection = 'connecting' | 'live' | 'offline';

export const connection = signal<Connection>('connecting');
export const status = signal<any>(null);
export const runs = signal<Run[]>([]);
export const gates = signal<Gate[]>([]);
export const prompts = signal<Prompt[]>([]);
export const notifications = signal<{ notifications: any[]; unreadCount: number }>({ notifications: [], unreadCount: 0 });
/** Bumped after every catch-up: pages holding their own copies reload them. */
export const epoch = signal(0);

const runSeq = new Map<string, number>();
const listeners = new Set<(e: EngineEvent) => void>();

const resetListeners = new Set<() => void>();

/** Called at every catch-up, before the logs of the runs in flight replay. */
export function onReset(fn: () => void): () => void {
  resetListeners.add(fn);
  return () => resetListeners.delete(fn);
}

/** Pages follow events here (chat streaming, a run's live log); returns the unsubscribe. */
export function onEvent(fn: (e: EngineEvent) => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

const TERMINAL = /^run\.(completed|failed|stopped|interrupted)$/;
const running = (r: Run) => r.status === 'running' || r.status === 'started';

/** Applies one event exactly once (a run's events by seq); false when it was seen already. */
export function apply(e: EngineEvent): boolean {
  if (e.runId) {
    const seen = runSeq.get(e.runId) ?? 0;
    if (e.seq <= seen) return false;
    runSeq.set(e.runId, e.seq);
  }
  batch(() => reduce(e));
  for (const fn of listeners) fn(e);
  return true;
}

function reduce(e: EngineEvent): void {
  const k = e.kind;
  if (k === 'run.started') {
    const { kind: _k, seq: _s, ts, ...rest } = e;
    if (!runs.value.some((r) => r.runId === e.runId)) runs.value = [{ ...(rest as Run), status: 'running', startedAt: ts }, ...runs.value];
  } else if (TERMINAL.test(k)) {
    const st = k.slice(4);
    runs.value = runs.value.map((r) => (r.runId === e.runId ? { ...r, status: st, endedAt: e.ts, error: e.error ?? r.error } : r));
    prompts.value = prompts.value.filter((p) => p.runId !== e.runId);
  } else if (k === 'gate.waiting') {
    const key = `${e.runId}:${e.nodeId}`;
    if (!gates.value.some((g) => g.key === key)) gates.value = [...gates.value, { key, runId: e.runId!, nodeId: e.nodeId, message: e.message, workflowId: e.workflowId, since: e.ts }];
  } else if (k === 'gate.resolved') {
    gates.value = gates.value.filter((g) => g.key !== `${e.runId}:${e.nodeId}`);
  } else if (k === 'permission.requested') {
    if (!prompts.value.some((p) => p.callId === e.callId && p.runId === e.runId)) {
      const { kind: _k, seq: _s, ts: _t, ...rest } = e;
      prompts.value = [...prompts.value, rest as Prompt];
    }
  } else if (k === 'permission.resolved' || k === 'permission.denied') {
    prompts.value = prompts.value.filter((p) => !(p.callId === e.callId && p.runId === e.runId));
  } else if (k === 'notification') {
    const { kind: _k, seq: _s, unreadCount, ...n } = e;
    if (!notifications.value.notifications.some((x) => x.id === n.id)) notifications.value = { notifications: [n, ...notifications.value.notifications], unreadCount };
  } else if (k === 'notifications.updated') {
    notifications.value = { ...notifications.value, unreadCount: e.unreadCount };
  }
}

let retry = 0;
let socket: WebSocket | null = null;
const openListeners = new Set<() => void>();

/** Sends a frame on the live socket (the workbench's presence); false when none is open. */
export function send(frame: unknown): boolean {
  if (socket?.readyState !== WebSocket.OPEN) return false;
  socket.send(JSON.stringify(frame));
  return true;
}

/** Called each time the socket opens (again). */
export function onSocketOpen(fn: () => void): () => void {
  openListeners.add(fn);
  return () => openListeners.delete(fn);
}

/** Catch up, then open the socket; on close, wait and do it all again. */
export async function connect(): Promise<void> {
  connection.value = 'connecting';
  try {
    await catchUp();
  } catch {
    return scheduleReconnect();
  }
  if (transport) {
    // Over the relay: the event stream comes through it, and a lost broker connection ends it.
    const stop = transport.events(apply, () => {
      stop();
      scheduleReconnect();
    });
    retry = 0;
    connection.value = 'live';
    void recheck();
    return;
  }
  const ws = new WebSocket(socketUrl());
  socket = ws;
  ws.onopen = () => {
    retry = 0;
    connection.value = 'live';
    for (const fn of openListeners) fn();
    // A run, gate or prompt that began between the catch-up's reads and this socket's opening sent
    // its event to nobody: ask once more now that every later event reaches us (merged, never doubled).
    void recheck();
  };
  ws.onmessage = (m) => {
    let e: EngineEvent;
    try {
      e = JSON.parse(String(m.data));
    } catch {
      return;
    }
    apply(e);
  };
  ws.onclose = () => scheduleReconnect();
}

function scheduleReconnect(): void {
  connection.value = 'offline';
  const delay = Math.min(5000, 250 * 2 ** retry++);
  setTimeout(() => void connect(), delay);
}

const gatesOf = (g: any): Gate[] => (g.gates ?? (g.pending as string[]).map((key: string) => ({ key, runId: key.split(':')[0], nodeId: key.split(':').slice(1).join(':') }))).filter((x: Gate) => !x.orphaned);

async function recheck(): Promise<void> {
  const [r, g, p] = await Promise.all([get<{ runs: Run[] }>('/api/runs'), get('/api/gates'), get('/api/permissions/pending').catch(() => ({ pending: [] }))]).catch(() => [undefined, undefined, undefined]);
  if (!r || !g) return;
  batch(() => {
    // Runs the socket already told of keep what it said (it is newer); the others join the list.
    const missing = r.runs.filter((x) => !runs.value.some((y) => y.runId === x.runId));
    if (missing.length) runs.value = [...missing, ...runs.value].sort((a, b) => (b.startedAt ?? 0) - (a.startedAt ?? 0));
    const fresh = gatesOf(g).filter((x) => !gates.value.some((y) => y.key === x.key));
    if (fresh.length) gates.value = [...gates.value, ...fresh];
    const more = ((p?.pending ?? []) as Prompt[]).filter((x) => !prompts.value.some((y) => y.callId === x.callId && y.runId === x.runId));
    if (more.length) prompts.value = [...prompts.value, ...more];
  });
}

async function catchUp(): Promise<void> {
  const st = await get('/api/status');
  const list = (await get<{ runs: Run[] }>('/api/runs')).runs;
  const inFlight = list.filter(running);
  const logs = await Promise.all(inFlight.map((r) => get<{ events: EngineEvent[] }>(`/api/runs/${encodeURIComponent(r.runId)}/events`).catch(() => ({ events: [] }))));
  const [g, p, n] = await Promise.all([get('/api/gates'), get('/api/permissions/pending').catch(() => ({ pending: [] })), get('/api/notifications')]);
  batch(() => {
    // State is rebuilt from the answers, not merged: a restarted engine may have forgotten things.
    runSeq.clear();
    status.value = st;
    runs.value = list;
    gates.value = gatesOf(g);
    prompts.value = p.pending ?? [];
    notifications.value = n;
  });
  // Followers drop what they built from events (a live chat turn) before the logs replay in full:
  // the same run's events are applied again from its start, never on top of the old copy.
  for (const fn of resetListeners) fn();
  for (const log of logs) for (const e of log.events) apply(e);
  epoch.value++;
}

// The provider banner reads /api/status: read it again when the provider map changes (this page,
// another client or a hand edit of the config file), so it never says "no provider" after one was added.
onEvent((e) => {
  if (e.kind === 'config.updated' || e.kind === 'config.reloaded') void get('/api/status').then((s) => (status.value = s), () => undefined);
});
