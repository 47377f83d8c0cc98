/**
 * What the engine is doing in each chat session right now, built from events from page load on (the
 * catch-up replays the log of a turn in flight, so a reload mid-answer shows the answer so far):
 * the streamed text, the tool calls as they run, the context use and the queue. The chat page draws
 * it under the session's saved messages; a turn's end makes the page read the session again.
 */
import { signal } from '@preact/signals';
import { onEvent, onReset, type EngineEvent } from './sync';
import { LiveOutput } from './live-output';

export interface ToolRun {
  callId: string;
  tool: string;
  args: unknown;
  ok?: boolean;
  result?: unknown;
  error?: string;
  durationMs?: number;
  /** browser_* tools: a small JPEG of the tab after the action (browser.action). */
  thumbnail?: string;
  /** A file write's unified diff (tool.result). */
  diff?: string;
  /** What the call printed while it ran (shell.output): appended outside the render, drawn by its card. */
  output: LiveOutput;
  /** An MCP tool's last progress notification (tool.progress). */
  progress?: { progress: number; total?: number; message?: string };
}

export interface LiveTurn {
  runId: string;
  text: string;
  reasoning: string;
  tools: ToolRun[];
  /** Set when the turn ended: `completed`, `failed`, `stopped`, `max_turns`. */
  outcome?: string;
  error?: string;
}

export const live = new Map<string, LiveTurn>();
export const context = new Map<string, { tokens: number; window: number }>();
export const queues = new Map<string, { id: string; message: string }[]>();
/** Bumped on every change above. */
export const chatTick = signal(0);
/** Bumped when a session's saved messages changed (a turn ended, a message arrived, a rename). */
export const sessionsTick = signal(0);

const sessionOfRun = new Map<string, string>();

/**
 * What each call printed, kept past its turn (the card of the saved call shows it instead of the
 * shorter saved result) for the last OUTPUTS_KEPT calls of this page.
 */
const outputs = new Map<string, LiveOutput>();
const OUTPUTS_KEPT = 50;

function outputFor(callId: string): LiveOutput {
  let out = outputs.get(callId);
  if (!out) {
    outputs.set(callId, (out = new LiveOutput()));
    if (outputs.size > OUTPUTS_KEPT) outputs.delete(outputs.keys().next().value!);
  }
  return out;
}

/** The output a call printed while this page watched it (none for calls of earlier pages). */
export const outputOf = (callId: string): LiveOutput | undefined => outputs.get(callId);

function handle(e: EngineEvent): void {
  const sid: string | undefined = e.sessionId ?? (e.runId ? sessionOfRun.get(e.runId) : undefined);
  if (!sid) return;
  if (e.runId && e.sessionId) sessionOfRun.set(e.runId, e.sessionId);
  const turn = () => {
    let t = live.get(sid);
    if (!t || (e.runId && t.runId !== e.runId)) live.set(sid, (t = { runId: e.runId ?? '', text: '', reasoning: '', tools: [] }));
    return t;
  };
  switch (e.kind) {
    case 'run.started':
      if (e.source === 'chat') turn();
      sessionsTick.value++;
      break;
    case 'chat.delta':
      turn().text += e.text;
      break;
    case 'chat.reasoning':
      turn().reasoning += e.text;
      break;
    case 'tool.call':
      turn().tools.push({ callId: e.callId, tool: e.tool, args: e.args, output: outputFor(e.callId) });
      break;
    case 'tool.result': {
      const t = turn().tools.find((x) => x.callId === e.callId);
      if (t) Object.assign(t, { ok: e.ok, result: e.result, error: e.error, durationMs: e.durationMs, diff: e.diff });
      break;
    }
    case 'shell.output': {
      // Many a second: appended to the card's buffer, which draws itself; the page re-renders only
      // for the first piece (the card then shows its output instead of "waiting for output").
      const out = turn().tools.find((x) => x.callId === e.callId)?.output;
      if (!out) return;
      const first = out.empty;
      out.push(String(e.text ?? ''));
      if (!first) return;
      break;
    }
    case 'tool.progress': {
      const t = turn().tools.find((x) => x.callId === e.callId);
      if (t) t.progress = { progress: e.progress, total: e.total, message: e.message };
      break;
    }
    case 'browser.action': {
      const t = turn().tools.find((x) => x.callId === e.callId);
      if (t && typeof e.thumbnail === 'string') t.thumbnail = e.thumbnail;
      break;
    }
    case 'chat.status':
      if (!e.busy) {
        const t = live.get(sid);
        if (t) Object.assign(t, { outcome: e.outcome ?? 'completed', error: e.error });
        sessionsTick.value++;
      }
      break;
    case 'chat.context':
      context.set(sid, { tokens: e.tokens, window: e.window });
      break;
    case 'chat.message':
    case 'chat.renamed':
      sessionsTick.value++;
      break;
    case 'chat.queued':
      queues.set(sid, [...(queues.get(sid) ?? []), { id: e.id, message: e.message }]);
      break;
    case 'chat.queue.updated':
      queues.set(sid, (queues.get(sid) ?? []).map((q) => (q.id === e.id ? { ...q, message: e.message } : q)));
      break;
    case 'chat.queue.removed':
      queues.set(sid, (queues.get(sid) ?? []).filter((q) => q.id !== e.id));
      break;
    default:
      return;
  }
  chatTick.value++;
}

onEvent(handle);
onReset(() => {
  live.clear();
  queues.clear(); // the queue lives in the engine's memory: a restart dropped it
  sessionOfRun.clear();
  chatTick.value++;
});
