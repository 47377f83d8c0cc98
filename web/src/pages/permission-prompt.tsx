/** One waiting tool-permission prompt with the engine's three answers (chat, Approvals, phone). */
import { post } from '../api';
import type { Prompt } from '../sync';
import { Action, short } from '../ui';

export function PermissionPrompt({ p }: { p: Prompt }) {
  const answer = (decision: 'allow' | 'deny', scope: 'once' | 'always' = 'once') => post('/api/permissions/resolve', { runId: p.runId, callId: p.callId, decision, scope });
  return (
    <div class="prompt" data-call={p.callId}>
      <div class="prompt-head">
        <strong>{p.tool}</strong> wants to run{p.class ? ` (${p.class})` : ''}
      </div>
      <code class="prompt-display">{short(p.display ?? p.key ?? p.tool, 600)}</code>
      {p.key && p.key !== p.display && <div class="muted small">rule key: {p.key}</div>}
      <div class="prompt-actions">
        <Action kind="primary" onClick={() => answer('allow', 'once')}>Allow once</Action>
        <Action onClick={() => answer('allow', 'always')} title={`always allow ${p.key ?? p.tool}`}>Always allow</Action>
        <Action kind="danger" onClick={() => answer('deny')}>Deny</Action>
      </div>
    </div>
  );
}
