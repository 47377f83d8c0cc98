/**
 * Workflows: the list, one workflow's graph (click a node to open and change it: the editor loads
 * then), run it with a payload, enable a disabled one (showing who wrote it and what its agents may
 * call), and the next fires of its cron triggers.
 */
import { signal, useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { get, post, put, sentence } from '../api';
import { navigate } from '../router';
import { epoch, onEvent } from '../sync';
import { Action, Badge, Empty, ErrorLine, PageHead, Time } from '../ui';
import { Graph } from './graph';

/** The editor's module, loaded the first time a node is opened (it is not in the first load). */
const editor = signal<typeof import('./workflow-editor') | null>(null);
const loadEditor = () => (editor.value ? Promise.resolve() : import('./workflow-editor').then((m) => void (editor.value = m)));

/** Who wrote a workflow, in words. */
export function AuthorLine({ author }: { author: any }) {
  if (!author || author.by === 'person') return <>a person{author ? '' : ' (not recorded)'}</>;
  return (
    <>
      a model{author.sessionId ? <> in the chat <a href={`/chat/${encodeURIComponent(author.sessionId)}`}>{author.sessionId}</a></> : author.runId ? <> in <a href={`/runs/${encodeURIComponent(author.runId)}`}>a run</a></> : null}
      {author.at ? <>, <Time ts={author.at} /></> : null}
      {author.mode === 'allow' ? ' (while its chat allowed every tool)' : ''}
    </>
  );
}

interface Workflow {
  id: string;
  name?: string;
  description?: string;
  disabled?: boolean;
  group?: string | null;
  nodes?: { id: string; type: string; config?: any }[];
  edges?: { from: string; to: string; when?: string }[];
  error?: string;
  author?: unknown;
  provenance?: unknown;
  [k: string]: unknown;
}

export function WorkflowsPage({ id }: { id?: string }) {
  const list = useSignal<Workflow[]>([]);
  const error = useSignal<string | null>(null);
  const tick = useSignal(0);
  useEffect(() => onEvent((e) => void (e.kind === 'workflows.changed' && tick.value++)), []);
  useEffect(() => {
    get<Workflow[] | { workflows: Workflow[] }>('/api/workflows').then(
      (r) => ((list.value = Array.isArray(r) ? r : r.workflows), (error.value = null)),
      (e) => (error.value = sentence(e)),
    );
  }, [epoch.value, tick.value]);
  const current = list.value.find((w) => w.id === id);
  return (
    <div class="split">
      <div class="list-pane">
        <PageHead title="Workflows" />
        <ErrorLine error={error.value} />
        {!list.value.length && !error.value && <Empty>No workflows yet. Ask the chat to write one, or save one under the workflows folder.</Empty>}
        {list.value.map((w) => (
          <a key={w.id} href={`/workflows/${encodeURIComponent(w.id)}`} class={`list-item ${w.id === id ? 'active' : ''}`}>
            <span class="grow">
              <span class="item-title wrap">{w.name || w.id}</span>
              <span class="muted small">{w.error ? 'cannot be read' : `${w.nodes?.length ?? 0} nodes`}</span>
            </span>
            {w.disabled && <Badge status="disabled" />}
            {w.error && <Badge status="failed" />}
          </a>
        ))}
      </div>
      <div class="detail-pane">{current ? <WorkflowDetail key={current.id} w={current} onChanged={() => tick.value++} /> : <Empty>Pick a workflow.</Empty>}</div>
    </div>
  );
}

function WorkflowDetail({ w, onChanged }: { w: Workflow; onChanged: () => void }) {
  const payload = useSignal('{}');
  const error = useSignal<string | null>(null);
  const selected = useSignal<string | null>(null);
  const open = (node: string | null) => {
    selected.value = node;
    loadEditor().catch((e) => (error.value = sentence(e)));
  };
  const Editor = editor.value?.WorkflowEditor;
  const crons = w.nodes?.filter((n) => n.type === 'trigger.cron') ?? [];
  const agents = w.nodes?.filter((n) => n.type === 'agent') ?? [];
  const who = w.provenance ?? w.author;
  const run = async () => {
    let body: unknown;
    try {
      body = JSON.parse(payload.value || '{}');
    } catch {
      throw new Error('the payload is not valid JSON; fix it or leave {}');
    }
    const r = await post<{ runId: string }>(`/api/runs/${encodeURIComponent(w.id)}`, { payload: body });
    navigate(`/runs/${encodeURIComponent(r.runId)}`);
  };
  const enable = async () => {
    const doc = await get<Workflow>(`/api/workflows/${encodeURIComponent(w.id)}`);
    const { error: _e, ...clean } = doc;
    await put(`/api/workflows/${encodeURIComponent(w.id)}`, { ...clean, disabled: false });
    onChanged();
  };
  return (
    <div class="page">
      <PageHead title={w.name || w.id}>
        {w.disabled ? <Action kind="primary" onClick={enable}>Enable</Action> : null}
      </PageHead>
      {w.description && <p>{w.description}</p>}
      {w.error && <div class="error-line">{w.error}</div>}
      <p class="muted small">
        Written by <AuthorLine author={who} />.
      </p>
      {w.disabled && (
        <div class="card">
          <p><strong>This workflow is disabled.</strong> Read what it does before you enable it.</p>
          {agents.length > 0 && (
            <div>
              What its agents may call:
              <ul>
                {agents.map((a) => (
                  <li key={a.id}>
                    <strong>{a.id}</strong>
                    {a.config?.agent ? ` (agent ${a.config.agent})` : ''}: {Array.isArray(a.config?.tools) ? a.config.tools.join(', ') || 'no tools' : a.config?.agent ? "the agent's own tool list" : 'every tool'}
                  </li>
                ))}
              </ul>
            </div>
          )}
        </div>
      )}
      {!w.error && Editor ? (
        <Editor id={w.id} selected={selected.value} onSelect={(n) => (selected.value = n)} onSaved={onChanged} />
      ) : (
        w.nodes && (
          <>
            <div class="graph-box">
              <Graph nodes={w.nodes} edges={w.edges ?? []} selected={selected.value} onSelect={w.error ? undefined : open} />
            </div>
            {!w.error && (
              <div class="row">
                <span class="muted small">Click a node to see and change its settings.</span>
                <button class="btn" onClick={() => open(null)}>Edit</button>
              </div>
            )}
          </>
        )
      )}
      {crons.map((c) => (
        <CronPreview key={c.id} expr={c.config?.expr ?? c.config?.cron ?? c.config?.schedule ?? ''} id={c.id} />
      ))}
      <h3>Run</h3>
      <textarea class="code" rows={4} value={payload.value} onInput={(e) => (payload.value = (e.target as HTMLTextAreaElement).value)} aria-label="payload" />
      <div class="row">
        <Action kind="primary" onClick={run} onError={(m) => (error.value = m)} disabled={!!w.error}>Run with this payload</Action>
      </div>
      <ErrorLine error={error.value} />
    </div>
  );
}

function CronPreview({ expr, id }: { expr: string; id: string }) {
  const text = useSignal(expr);
  const answer = useSignal<{ ok: boolean; next?: string[]; description?: string; error?: string } | null>(null);
  useEffect(() => {
    if (!text.value) return;
    const t = setTimeout(() => post('/api/cron/preview', { expr: text.value }).then((r) => (answer.value = r), (e) => (answer.value = { ok: false, error: sentence(e) })), 200);
    return () => clearTimeout(t);
  }, [text.value]);
  const a = answer.value;
  return (
    <div class="card">
      <div class="row">
        <span class="muted">Cron of {id}</span>
        <input value={text.value} onInput={(e) => (text.value = (e.target as HTMLInputElement).value)} class="mono" aria-label="cron expression" />
      </div>
      {a && (a.ok ? <div class="small">{a.description} — next: {a.next?.map((n) => new Date(n).toLocaleString()).join(' · ')}</div> : <div class="error-line">{a.error}</div>)}
    </div>
  );
}
