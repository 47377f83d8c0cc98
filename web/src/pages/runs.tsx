/** Runs: the last runs, and one run's events live, with stop and resume. */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { get, post, sentence } from '../api';
import { epoch, onEvent, runs, type EngineEvent } from '../sync';
import { Action, ago, Badge, Empty, ErrorLine, PageHead, short } from '../ui';

export function RunsPage({ runId }: { runId?: string }) {
  return (
    <div class="split">
      <div class="list-pane">
        <PageHead title="Runs" />
        {!runs.value.length && <Empty>No runs yet.</Empty>}
        {runs.value.map((r) => (
          <a key={r.runId} href={`/runs/${encodeURIComponent(r.runId)}`} class={`list-item ${r.runId === runId ? 'active' : ''}`}>
            <span class="grow">
              <span class="item-title">{r.title || r.workflowId || r.runId}</span>
              <span class="muted small">
                {r.source} · {ago(r.startedAt)}
              </span>
            </span>
            <Badge status={r.status} />
          </a>
        ))}
      </div>
      <div class="detail-pane">{runId ? <RunDetail key={runId} runId={runId} /> : <Empty>Pick a run to see its events.</Empty>}</div>
    </div>
  );
}

function RunDetail({ runId }: { runId: string }) {
  const events = useSignal<EngineEvent[]>([]);
  const error = useSignal<string | null>(null);
  const note = useSignal<string | null>(null);
  useEffect(() => {
    let seen = 0;
    const buffered: EngineEvent[] = [];
    let loaded = false;
    const off = onEvent((e) => {
      if (e.runId !== runId) return;
      if (!loaded) buffered.push(e);
      else if (e.seq > seen) ((seen = e.seq), (events.value = [...events.value, e]));
    });
    get<{ events: EngineEvent[] }>(`/api/runs/${encodeURIComponent(runId)}/events`).then(
      (r) => {
        const all = [...r.events];
        seen = all.reduce((m, e) => Math.max(m, e.seq), 0);
        for (const e of buffered) if (e.seq > seen) (all.push(e), (seen = e.seq));
        loaded = true;
        events.value = all;
      },
      (e) => (error.value = sentence(e)),
    );
    return off;
  }, [runId, epoch.value]);
  const run = runs.value.find((r) => r.runId === runId);
  const active = run?.status === 'running';
  return (
    <div class="page">
      <PageHead title={run?.title || run?.workflowId || runId}>
        {run && <Badge status={run.status} />}
        {active && <Action kind="danger" onClick={() => post(`/api/runs/${encodeURIComponent(runId)}/stop`)}>Stop</Action>}
        {run && !active && run.source !== 'chat' && (
          <Action
            onClick={async () => {
              const r = await post<{ restored: string[]; rerun: string[]; lossy: string[] }>(`/api/runs/${encodeURIComponent(runId)}/resume`);
              const list = (xs: string[]) => (xs.length ? xs.join(', ') : 'none');
              note.value = `Resumed. Restored: ${list(r.restored)}. Rerun: ${list(r.rerun)}. Lossy (may have left partial effects): ${list(r.lossy)}.`;
            }}
          >
            Resume
          </Action>
        )}
      </PageHead>
      {run?.sessionId && <p><a href={`/chat/${encodeURIComponent(run.sessionId)}`}>Open the chat session</a></p>}
      {run?.error && <div class="error-line">{run.error}</div>}
      {note.value && <div class="muted">{note.value}</div>}
      <ErrorLine error={error.value} />
      <table class="events">
        <tbody>
          {events.value.map((e) => (
            <tr key={e.seq} data-seq={e.seq}>
              <td class="muted small nowrap">{new Date(e.ts).toLocaleTimeString()}</td>
              <td class="nowrap">
                <span class={`kind ${e.kind.split('.')[0]}`}>{e.kind}</span>
              </td>
              <td class="small">{short(describe(e), 300)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function describe(e: EngineEvent): string {
  const { kind: _k, ts: _t, seq: _s, runId: _r, ...rest } = e;
  if (e.nodeId) return `${e.nodeId}${e.error ? ': ' + e.error : e.output !== undefined ? ' → ' + short(e.output, 200) : ''}`;
  if (e.kind === 'chat.delta') return e.text;
  return JSON.stringify(rest);
}
