/** One waiting tool-permission prompt with the engine's three answers (chat, Approvals, phone). */
import { post } from '../api';
import type { Prompt } from '../sync';
import { Action, short } from '../ui';

/** The gate's classes in a person's words (seed 001 §5); a class not listed here is not shown. */
const classWords: Record<string, string> = {
  code: 'runs code on this computer',
  delete: 'deletes a file',
  unknown: 'its effect is not known in advance',
};

export function PermissionPrompt({ p }: { p: Prompt }) {
  // Every rule "Always allow" saves is listed on the card, and the answer names exactly those: the
  // engine saves only the keys a card says it showed (docs/permissions.md). An empty list means no
  // rule can be saved (a command known only when it runs): the card offers "once" alone.
  const keys: string[] = Array.isArray(p.keys) ? p.keys : p.key ? [p.key] : [];
  const answer = (decision: 'allow' | 'deny', scope: 'once' | 'always' = 'once') =>
    post('/api/permissions/resolve', { runId: p.runId, callId: p.callId, decision, scope, ...(scope === 'always' ? { keys } : {}) });
  return (
    <div class="prompt" data-call={p.callId}>
      <div class="prompt-head">
        <strong>{p.tool}</strong> wants to run{p.class && classWords[p.class] ? `: ${classWords[p.class]}` : ''}
      </div>
      <code class="prompt-display">{short(p.display ?? p.key ?? p.tool, 600)}</code>
      {keys.length > 0 && (
        <div class="muted small prompt-keys" style={{ marginBottom: 6 }}>
          {keys.length === 1 ? 'Always allow saves the rule ' : `Always allow saves ${keys.length} rules: `}
          {keys.map((k, i) => (
            <span key={k}>
              {i > 0 && ', '}
              <code>{k}</code>
            </span>
          ))}
        </div>
      )}
      <div class="prompt-actions">
        <Action kind="primary" onClick={() => answer('allow', 'once')}>Allow once</Action>
        {keys.length > 0 && (
          <Action onClick={() => answer('allow', 'always')} title={`always allow ${keys.join(', ')}`}>
            {keys.length === 1 ? 'Always allow' : `Always allow all ${keys.length}`}
          </Action>
        )}
        <Action kind="danger" onClick={() => answer('deny')}>Deny</Action>
      </div>
    </div>
  );
}
