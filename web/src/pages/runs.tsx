/**
 * Runs: the last runs, and one run as a person reads it: its steps (a workflow's nodes, or the tool
 * calls of a chat or a build) with status, duration, output, error, retries and a gate's decision,
 * live; the raw event log behind its own tab, a streamed answer as one row rather than one a token.
 * Stop and resume.
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { get, post, sentence } from '../api';
import { epoch, onEvent, runs, type EngineEvent } from '../sync';
import { Action, Badge, Empty, ErrorLine, PageHead, short, Time } from '../ui';
import { logRows, stepsOf, type Step } from './run-steps';

export function RunsPage({ runId }: { runId?: string }) {
  return (
    <div class={`split ${runId ? 'has-detail' : ''}`}>
      <div class="list-pane">
        <PageHead title="Runs" />
        {!runs.value.length && <Empty>No runs yet.</Empty>}
        {runs.value.map((r) => (
          <a key={r.runId} href={`/runs/${encodeURIComponent(r.runId)}`} class={`list-item ${r.runId === runId ? 'active' : ''}`}>
            <span class="grow">
              <span class="item-title">{r.title || r.workflowId || 'untitled run'}</span>
              <span class="muted small">
                {SOURCES[r.source ?? ''] ?? r.source} · <Time ts={r.startedAt} />
              </span>
            </span>
            <Badge status={r.status} />
          </a>
        ))}
      </div>
      <div class="detail-pane">{runId ? <RunDetail key={runId} runId={runId} /> : <Empty>Pick a run to see what it did.</Empty>}</div>
    </div>
  );
}

/** Where a run came from, in words. */
const SOURCES: Record<string, string> = { manual: 'started by hand', chat: 'chat', cron: 'on schedule', webhook: 'webhook', dashboard: 'dashboard build', atlas: 'code map build', vault: 'vault capture', gateway: 'gateway' };

function RunDetail({ runId }: { runId: string }) {
  const events = useSignal<EngineEvent[]>([]);
  const error = useSignal<string | null>(null);
  const note = useSignal<string | null>(null);
  const tab = useSignal<'steps' | 'log' | null>(null);
  useEffect(() => {
    let seen = 0;
    let loaded = false;
    const buffered: EngineEvent[] = [];
    // A token stream sends many events a second: they join the list once a frame, not once each.
    let frame = 0;
    const flush = () => {
      frame = 0;
      const fresh = buffered.splice(0).filter((e) => e.seq > seen && (seen = e.seq));
      if (fresh.length) events.value = events.value.concat(fresh);
    };
    const off = onEvent((e) => {
      if (e.runId !== runId) return;
      buffered.push(e);
      if (loaded && !frame) frame = requestAnimationFrame(flush);
    });
    get<{ events: EngineEvent[] }>(`/api/runs/${encodeURIComponent(runId)}/events`).then(
      (r) => {
        seen = r.events.reduce((m, e) => Math.max(m, e.seq), 0);
        loaded = true;
        events.value = r.events;
        flush();
      },
      (e) => (error.value = sentence(e)),
    );
    return () => (off(), cancelAnimationFrame(frame));
  }, [runId, epoch.value]);
  const run = runs.value.find((r) => r.runId === runId);
  const active = run?.status === 'running';
  const steps = stepsOf(events.value, run && run.status !== 'running' ? run.status : undefined);
  const shown = tab.value ?? (steps.length ? 'steps' : 'log');
  return (
    <div class="page">
      <PageHead title={run?.title || run?.workflowId || 'Run'}>
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
      <div class="muted small run-facts">
        {run?.workflowId && <>workflow <a href={`/workflows/${encodeURIComponent(run.workflowId)}`}>{run.workflowId}</a> · </>}
        {run?.sessionId && <><a href={`/chat/${encodeURIComponent(run.sessionId)}`}>open the chat</a> · </>}
        {run && <>{SOURCES[run.source ?? ''] ?? run.source} · started <Time ts={run.startedAt} />{run.endedAt ? <> · took {duration(run.endedAt - run.startedAt)}</> : null} · </>}
        <span title="the run's id, for the API and the logs">{runId}</span>
      </div>
      {run?.error && <div class="error-line">{run.error}</div>}
      {note.value && <div class="muted">{note.value}</div>}
      <ErrorLine error={error.value} />
      <div class="seg tabs-inline" role="tablist">
        <button role="tab" aria-selected={shown === 'steps'} class={shown === 'steps' ? 'on' : ''} onClick={() => (tab.value = 'steps')}>
          Steps
        </button>
        <button role="tab" aria-selected={shown === 'log'} class={shown === 'log' ? 'on' : ''} onClick={() => (tab.value = 'log')}>
          Event log
        </button>
      </div>
      {shown === 'steps' ? <Steps steps={steps} /> : <EventLog events={events.value} />}
    </div>
  );
}

export function duration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

function Steps({ steps }: { steps: Step[] }) {
  if (!steps.length) return <Empty>No steps yet.</Empty>;
  return (
    <div class="steps">
      {steps.map((s) => (
        <StepCard key={s.key} s={s} />
      ))}
    </div>
  );
}

function StepCard({ s, nested }: { s: Step; nested?: boolean }) {
  const open = useSignal(false);
  const long = (s.output?.length ?? 0) > 240 || (s.output ?? '').includes('\n');
  return (
    <div class={`step ${s.status} ${nested ? 'nested' : ''}`} data-step={s.id}>
      <div class="step-head">
        <strong class="step-name">{s.id}</strong>
        {s.type && <span class="muted small">{s.type}</span>}
        <span class="grow" />
        {s.retries > 0 && <span class="badge stopped" title="attempts that failed and were tried again">{s.retries} {s.retries === 1 ? 'retry' : 'retries'}</span>}
        {s.end !== undefined && s.start !== undefined && <span class="muted small">{duration(s.end - s.start)}</span>}
        <Badge status={s.status} />
      </div>
      {s.detail && <div class="small mono wrap">{s.detail}</div>}
      {s.gate && (
        <div class={`small gate-decision ${s.gate.approved === undefined ? '' : s.gate.approved ? 'ok' : 'error'}`}>
          {s.gate.approved === undefined ? `Waiting for a person: ${s.gate.message ?? 'approve or reject'}` : `${s.gate.approved ? 'Approved' : 'Rejected'}${s.gate.note ? `: “${s.gate.note}”` : ''}`}
        </div>
      )}
      {s.retryErrors.map((e, i) => (
        <div class="small muted">attempt {i + 1} failed: {e}</div>
      ))}
      {s.error && <div class="error-line">{s.error}</div>}
      {s.output !== undefined && s.output !== '' && !s.gate && (
        <pre class={`step-output ${open.value || !long ? 'open' : ''}`} onClick={() => (open.value = !open.value)} title={long ? (open.value ? 'click to fold' : 'click to show all') : undefined}>
          {s.output}
        </pre>
      )}
      {s.children.map((c) => (
        <StepCard key={c.key} s={c} nested />
      ))}
    </div>
  );
}

function EventLog({ events }: { events: EngineEvent[] }) {
  const rows = logRows(events);
  return (
    <table class="events">
      <tbody>
        {rows.map((r) => (
          <tr key={r.seq} data-seq={r.seq}>
            <td class="muted small nowrap" title={new Date(r.ts).toLocaleString()}>
              {new Date(r.ts).toLocaleTimeString()}
            </td>
            <td class="nowrap">
              <span class={`kind ${r.kind.split('.')[0]}`}>{r.kind}</span>
              {r.count > 1 && <span class="muted small"> ×{r.count}</span>}
            </td>
            <td class="small wrap">{short(r.text, 400)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
