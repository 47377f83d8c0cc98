/**
 * The workflow editor, loaded only when a node is opened (it is not part of the first load): the
 * graph with the selected node, its settings as a form made from its type's config schema
 * (GET /api/workflow-node-types), its edges, retries and time limit; adding and connecting nodes;
 * the whole document as JSON; and the engine's checks (POST /api/workflows/validate) as you edit,
 * each next to the node and field it is about. Save sends the document and shows the warnings.
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { get, post, put, sentence } from '../api';
import { Action, ErrorLine } from '../ui';
import { Graph } from './graph';
import { ConfigForm, type NodeType } from './node-form';

export interface Doc {
  id: string;
  formatVersion: number;
  group?: string | null;
  name?: string;
  nodes: { id: string; type: string; config?: Record<string, unknown>; retry?: { maxAttempts?: number; backoffMs?: number }; timeoutMs?: number }[];
  edges: { from: string; to: string; when?: string }[];
  [k: string]: unknown;
}

/** What a person calls each node type (the engine's own description is one click away). */
export const TYPE_LABELS: Record<string, string> = {
  'trigger.manual': 'Start by hand',
  'trigger.webhook': 'Webhook',
  'trigger.cron': 'Schedule',
  agent: 'Agent',
  command: 'Command',
  http: 'HTTP request',
  gate: 'Approval',
  condition: 'Condition',
  map: 'For each',
  workflow: 'Subworkflow',
  state: 'Set state',
  notify: 'Notify',
  wait: 'Wait',
};

/** Fields the engine adds to a document it answers, which are not the document. */
const ANSWER_ONLY = ['warnings', 'author', 'error', 'triggers', 'lastRun'];
const clean = (d: Record<string, unknown>): Doc => Object.fromEntries(Object.entries(d).filter(([k]) => !ANSWER_ONLY.includes(k))) as Doc;

/** A check sentence's node and config field (`node "fetch": config.url must not be empty`). */
export function aboutOf(sentence: string): { node?: string; field?: string } {
  const m = /^node "([^"]+)": (?:config\.(\w+))?/.exec(sentence);
  return m ? { node: m[1], field: m[2] } : {};
}

let typesCache: Promise<NodeType[]> | undefined;
const nodeTypes = () => (typesCache ??= get<NodeType[]>('/api/workflow-node-types').catch((e) => ((typesCache = undefined), Promise.reject(e))));

export function WorkflowEditor({ id, selected, onSelect, onSaved }: { id: string; selected: string | null; onSelect: (node: string | null) => void; onSaved: () => void }) {
  const saved = useSignal<Doc | null>(null);
  const draft = useSignal<Doc | null>(null);
  const types = useSignal<NodeType[]>([]);
  const checks = useSignal<{ errors: string[]; warnings: string[] } | null>(null);
  const tab = useSignal<'node' | 'json'>('node');
  const error = useSignal<string | null>(null);
  const note = useSignal<string | null>(null);
  useEffect(() => {
    Promise.all([get<Record<string, unknown>>(`/api/workflows/${encodeURIComponent(id)}`), nodeTypes()]).then(
      ([d, t]) => ((saved.value = clean(d)), (draft.value = clean(d)), (types.value = t)),
      (e) => (error.value = sentence(e)),
    );
  }, [id]);
  // The engine's checks, a moment after each change.
  useEffect(() => {
    const d = draft.value;
    if (!d) return;
    const t = setTimeout(() => post<{ errors: string[]; warnings: string[] }>('/api/workflows/validate', d).then((r) => (checks.value = r), (e) => (checks.value = { errors: [sentence(e)], warnings: [] })), 250);
    return () => clearTimeout(t);
  }, [draft.value]);
  const d = draft.value;
  if (!d) return <ErrorLine error={error.value} />;
  const dirty = JSON.stringify(d) !== JSON.stringify(saved.value);
  const change = (next: Doc) => ((draft.value = next), (note.value = null));
  const node = d.nodes.find((n) => n.id === selected);
  const flagged = new Set((checks.value?.errors ?? []).map((s) => aboutOf(s).node).filter(Boolean) as string[]);
  const save = async () => {
    error.value = null;
    try {
      const r = await put<{ warnings?: string[] }>(`/api/workflows/${encodeURIComponent(id)}`, d);
      saved.value = d;
      note.value = r.warnings?.length ? `Saved, with ${r.warnings.length === 1 ? 'a warning' : `${r.warnings.length} warnings`}: ${r.warnings.join('; ')}` : 'Saved.';
      onSaved();
    } catch (e) {
      error.value = sentence(e);
    }
  };
  return (
    <div class="editor-box">
      <div class="graph-box">
        <Graph nodes={d.nodes} edges={d.edges} selected={selected} flagged={flagged} onSelect={onSelect} />
      </div>
      <div class="row editor-bar">
        <AddNode doc={d} types={types.value} onAdd={(n) => (change({ ...d, nodes: [...d.nodes, n] }), onSelect(n.id))} />
        <span class="grow" />
        {dirty && <span class="muted small">unsaved changes</span>}
        {dirty && <button class="btn" onClick={() => ((draft.value = saved.value), (note.value = null))}>Discard</button>}
        <Action kind="primary" disabled={!dirty} onClick={save}>Save workflow</Action>
      </div>
      {note.value && <div class="ok-line" role="status" data-saved-note>{note.value}</div>}
      <ErrorLine error={error.value} />
      <Checks checks={checks.value} />
      <div class="seg tabs-inline" role="tablist">
        <button role="tab" aria-selected={tab.value === 'node'} class={tab.value === 'node' ? 'on' : ''} onClick={() => (tab.value = 'node')}>Node</button>
        <button role="tab" aria-selected={tab.value === 'json'} class={tab.value === 'json' ? 'on' : ''} onClick={() => (tab.value = 'json')}>JSON</button>
      </div>
      {tab.value === 'json' ? (
        <JsonView doc={d} onApply={change} />
      ) : node ? (
        <NodePanel key={node.id} doc={d} node={node} type={types.value.find((t) => t.type === node.type)} checks={checks.value?.errors ?? []} onChange={change} onSelect={onSelect} />
      ) : (
        <div class="muted pad">Click a node in the drawing to see and change its settings.</div>
      )}
    </div>
  );
}

/** The engine's checks of the draft: errors block a save, warnings do not. */
function Checks({ checks }: { checks: { errors: string[]; warnings: string[] } | null }) {
  if (!checks || (!checks.errors.length && !checks.warnings.length)) return null;
  return (
    <div class="checks" data-checks>
      {checks.errors.map((s) => (
        <div class="error-line">{s}</div>
      ))}
      {checks.warnings.map((s) => (
        <div class="warn-line">{s}</div>
      ))}
    </div>
  );
}

function NodePanel({ doc, node, type, checks, onChange, onSelect }: { doc: Doc; node: Doc['nodes'][number]; type?: NodeType; checks: string[]; onChange: (d: Doc) => void; onSelect: (id: string | null) => void }) {
  const setNode = (patch: Partial<Doc['nodes'][number]>) => onChange({ ...doc, nodes: doc.nodes.map((n) => (n.id === node.id ? { ...n, ...patch } : n)) });
  const mine = checks.filter((s) => aboutOf(s).node === node.id);
  const fieldErrors: Record<string, string> = {};
  for (const s of mine) {
    const f = aboutOf(s).field;
    if (f) fieldErrors[f] = fieldErrors[f] ? `${fieldErrors[f]}; ${s}` : s;
  }
  const rename = (to: string) => {
    if (!to || to === node.id) return;
    onChange({ ...doc, nodes: doc.nodes.map((n) => (n.id === node.id ? { ...n, id: to } : n)), edges: doc.edges.map((e) => ({ ...e, from: e.from === node.id ? to : e.from, to: e.to === node.id ? to : e.to })) });
    onSelect(to);
  };
  const out = doc.edges.filter((e) => e.from === node.id);
  const into = doc.edges.filter((e) => e.to === node.id);
  const dropEdge = (edge: Doc['edges'][number]) => onChange({ ...doc, edges: doc.edges.filter((e) => e !== edge) });
  return (
    <section class="node-panel" aria-label={`node ${node.id}`} data-node-panel={node.id}>
      <div class="row">
        <label class="field">
          <span class="field-label">Node id</span>
          <input class="mono" value={node.id} onChange={(e) => rename((e.target as HTMLInputElement).value.trim())} />
        </label>
        <span class="badge">{TYPE_LABELS[node.type] ?? node.type}</span>
        <span class="muted small mono">{node.type}</span>
        <span class="grow" />
        <button
          class="btn danger"
          onClick={() => {
            onChange({ ...doc, nodes: doc.nodes.filter((n) => n.id !== node.id), edges: doc.edges.filter((e) => e.from !== node.id && e.to !== node.id) });
            onSelect(null);
          }}
        >
          Delete node
        </button>
      </div>
      {type && (
        <details class="small muted">
          <summary>What it does</summary>
          {type.description}
        </details>
      )}
      {mine.filter((s) => !aboutOf(s).field).map((s) => (
        <div class="error-line">{s}</div>
      ))}
      {type ? <ConfigForm schema={type.config} value={node.config ?? {}} errors={fieldErrors} onChange={(config) => setNode({ config: Object.keys(config).length ? config : undefined })} /> : <div class="error-line">Unknown node type "{node.type}".</div>}
      <div class="form-cols">
        <label class="field">
          <span class="field-label">Attempts</span>
          <input inputMode="numeric" value={node.retry?.maxAttempts ?? ''} placeholder="1" onInput={(e) => setNode({ retry: numberOr(e, node.retry, 'maxAttempts') })} />
        </label>
        <label class="field">
          <span class="field-label">Wait before a retry (ms)</span>
          <input inputMode="numeric" value={node.retry?.backoffMs ?? ''} placeholder="1000" onInput={(e) => setNode({ retry: numberOr(e, node.retry, 'backoffMs') })} />
        </label>
        <label class="field">
          <span class="field-label">Time limit per attempt (ms)</span>
          <input inputMode="numeric" value={node.timeoutMs ?? ''} placeholder="none" onInput={(e) => setNode({ timeoutMs: toNumber((e.target as HTMLInputElement).value) })} />
        </label>
      </div>
      <h3>Connections</h3>
      {!into.length && !out.length && <div class="muted small">Not connected yet.</div>}
      {into.map((e) => (
        <div class="row small">
          from <a href="#" onClick={(ev) => (ev.preventDefault(), onSelect(e.from))}>{e.from}</a> {e.when && <span class="badge">{e.when}</span>}
          <button class="btn" aria-label={`remove the connection from ${e.from}`} onClick={() => dropEdge(e)}>✕</button>
        </div>
      ))}
      {out.map((e) => (
        <div class="row small">
          to <a href="#" onClick={(ev) => (ev.preventDefault(), onSelect(e.to))}>{e.to}</a> {e.when && <span class="badge">{e.when}</span>}
          <button class="btn" aria-label={`remove the connection to ${e.to}`} onClick={() => dropEdge(e)}>✕</button>
        </div>
      ))}
      <Connect doc={doc} from={node.id} branches={type?.branches ?? []} onAdd={(edge) => onChange({ ...doc, edges: [...doc.edges, edge] })} />
    </section>
  );
}

const toNumber = (s: string): number | undefined => (s.trim() === '' ? undefined : /^-?\d+(\.\d+)?$/.test(s.trim()) ? Number(s) : (s as unknown as number));

function numberOr(e: Event, retry: Doc['nodes'][number]['retry'], key: 'maxAttempts' | 'backoffMs') {
  const next = { ...retry, [key]: toNumber((e.target as HTMLInputElement).value) };
  if (next[key] === undefined) delete next[key];
  return Object.keys(next).length ? next : undefined;
}

/** Connects the selected node to another: on success, or on one of its branches. */
function Connect({ doc, from, branches, onAdd }: { doc: Doc; from: string; branches: string[]; onAdd: (e: Doc['edges'][number]) => void }) {
  const to = useSignal('');
  const when = useSignal('');
  const targets = doc.nodes.filter((n) => n.id !== from);
  return (
    <div class="row connect">
      <span class="small">Connect to</span>
      <select aria-label="connect to" value={to.value} onChange={(e) => (to.value = (e.target as HTMLSelectElement).value)}>
        <option value="">a node…</option>
        {targets.map((n) => (
          <option value={n.id}>{n.id}</option>
        ))}
      </select>
      <select aria-label="when" value={when.value} onChange={(e) => (when.value = (e.target as HTMLSelectElement).value)}>
        <option value="">on success</option>
        {branches.map((b) => (
          <option value={b}>when {b}</option>
        ))}
      </select>
      <button class="btn" disabled={!to.value} onClick={() => (onAdd({ from, to: to.value, ...(when.value ? { when: when.value } : {}) }), (to.value = ''), (when.value = ''))}>
        Connect
      </button>
    </div>
  );
}

function AddNode({ doc, types, onAdd }: { doc: Doc; types: NodeType[]; onAdd: (n: Doc['nodes'][number]) => void }) {
  const type = useSignal('');
  const free = (t: string) => {
    const base = t.split('.').pop()!;
    for (let i = 1; ; i++) if (!doc.nodes.some((n) => n.id === `${base}-${i}`)) return `${base}-${i}`;
  };
  return (
    <span class="row">
      <select aria-label="node type to add" value={type.value} onChange={(e) => (type.value = (e.target as HTMLSelectElement).value)}>
        <option value="">Add a node…</option>
        {types.map((t) => (
          <option value={t.type}>{TYPE_LABELS[t.type] ?? t.type}</option>
        ))}
      </select>
      <button class="btn" disabled={!type.value} onClick={() => (onAdd({ id: free(type.value), type: type.value }), (type.value = ''))}>
        Add node
      </button>
    </span>
  );
}

/** The whole document as JSON: edited as text, checked as you type, applied to the drawing with Apply. */
function JsonView({ doc, onApply }: { doc: Doc; onApply: (d: Doc) => void }) {
  const text = useSignal(JSON.stringify(doc, null, 2));
  const problem = useSignal<string | null>(null);
  const checks = useSignal<{ errors: string[]; warnings: string[] } | null>(null);
  useEffect(() => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text.value);
      problem.value = null;
    } catch (e) {
      problem.value = `not valid JSON: ${(e as Error).message}`;
      checks.value = null;
      return;
    }
    const t = setTimeout(() => post<{ errors: string[]; warnings: string[] }>('/api/workflows/validate', parsed).then((r) => (checks.value = r), (e) => (checks.value = { errors: [sentence(e)], warnings: [] })), 250);
    return () => clearTimeout(t);
  }, [text.value]);
  return (
    <div class="json-view">
      <textarea class="code" rows={18} aria-label="workflow JSON" spellcheck={false} value={text.value} onInput={(e) => (text.value = (e.target as HTMLTextAreaElement).value)} />
      {problem.value && <div class="error-line">{problem.value}</div>}
      <Checks checks={checks.value} />
      <div class="row">
        <button class="btn" disabled={!!problem.value} onClick={() => onApply(JSON.parse(text.value) as Doc)}>
          Apply to the drawing
        </button>
        <span class="muted small">Then Save workflow.</span>
      </div>
    </div>
  );
}
