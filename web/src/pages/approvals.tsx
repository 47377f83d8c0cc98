/** Approvals: every workflow gate and tool-permission prompt waiting, across runs, one click each. */
import { useSignal } from '@preact/signals';
import { post } from '../api';
import { path } from '../router';
import { gates, prompts, runs } from '../sync';
import { Action, Empty, PageHead, Time } from '../ui';
import { PermissionPrompt } from './permission-prompt';

/** `phone`: the phone layout has no workflow or run pages, so their names are not links there. */
export function ApprovalsPage({ phone }: { phone?: boolean }) {
  const link = (href: string, text: string) => (phone && !href.startsWith('/m/') ? <span>{text}</span> : <a href={href}>{text}</a>);
  const notes = useSignal<Record<string, string>>({});
  const total = gates.value.length + prompts.value.length;
  /** What a person calls a run: its title (a chat's name, a workflow's), never its id. */
  const runName = (runId: string, fallback?: string) => {
    const r = runs.value.find((x) => x.runId === runId);
    return r?.title || r?.workflowId || fallback || 'a run';
  };
  // A tapped push opens `?approval=<gate key or runId:callId>`: that card is marked and scrolled to.
  const focus = path.value.includes('?') ? new URLSearchParams(path.value.split('?')[1]).get('approval') : null;
  const focused = (id: string) => (id === focus ? ' focused' : '');
  const scrollTo = (el: HTMLElement | null) => {
    if (el?.classList.contains('focused')) el.scrollIntoView({ block: 'center' });
  };
  return (
    <div class="page">
      <PageHead title="Approvals" />
      {!total && <Empty>Nothing is waiting for you.</Empty>}
      {gates.value.map((g) => (
        <div class={`card gate${focused(g.key)}`} key={g.key} data-gate={g.key} ref={scrollTo}>
          <div class="card-head">
            <strong>{g.message || `Gate ${g.nodeId}`}</strong>
            <span class="muted small">
              {g.workflowId ? <>workflow {link(`/workflows/${encodeURIComponent(g.workflowId)}`, runName(g.runId, g.workflowId))} · </> : null}
              {link(`/runs/${encodeURIComponent(g.runId)}`, 'its run')} · waiting since <Time ts={g.since} />
            </span>
          </div>
          <input
            class="note"
            placeholder="Note (optional)"
            value={notes.value[g.key] ?? ''}
            onInput={(e) => (notes.value = { ...notes.value, [g.key]: (e.target as HTMLInputElement).value })}
          />
          <div class="row">
            <Action kind="primary" onClick={() => post('/api/gates/resolve', { runId: g.runId, nodeId: g.nodeId, approved: true, ...(notes.value[g.key] ? { note: notes.value[g.key] } : {}) })}>Approve</Action>
            <Action kind="danger" onClick={() => post('/api/gates/resolve', { runId: g.runId, nodeId: g.nodeId, approved: false, ...(notes.value[g.key] ? { note: notes.value[g.key] } : {}) })}>Reject</Action>
          </div>
        </div>
      ))}
      {prompts.value.map((p) => (
        <div class={`card${focused(`${p.runId}:${p.callId}`)}`} key={`${p.runId}:${p.callId}`} data-approval={`${p.runId}:${p.callId}`} ref={scrollTo}>
          <div class="muted small">
            {p.sessionId ? <>in the chat {link(`${phone ? '/m' : ''}/chat/${encodeURIComponent(p.sessionId)}`, runName(p.runId, p.sessionId))}</> : <>in {link(`/runs/${encodeURIComponent(p.runId)}`, runName(p.runId))}</>}
          </div>
          <PermissionPrompt p={p} />
        </div>
      ))}
    </div>
  );
}
