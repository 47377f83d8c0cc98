/**
 * What a person reviews before a workflow a model wrote may run on its own: its triggers, what its
 * agent nodes may call, its commands, and the whole document. The approval prompt of
 * `save_workflow` with `"disabled": false` and the `workflow.proposed` event show it.
 */
import { nodeType } from './nodes/index.js';
import type { NodeSpec, WorkflowDocument } from './types.js';

export interface ReviewSummary {
  triggers: Array<{ nodeId: string; type: string; expr?: string }>;
  /** Per agent node: the tools it may call (`all tools` when unlimited, or the agent definition's list). */
  agents: Array<{ nodeId: string; agent?: string; tools: string }>;
  commands: Array<{ nodeId: string; command: string }>;
}

/** Every node, the map's inline node included. */
function* nodesOf(doc: WorkflowDocument): Generator<NodeSpec> {
  for (const n of doc.nodes) {
    yield n;
    const inner = n.type === 'map' ? (n.config?.node as { type?: string; config?: Record<string, unknown> } | undefined) : undefined;
    if (inner?.type) yield { id: `${n.id}.node`, type: inner.type, config: inner.config };
  }
}

export const hasTriggers = (doc: WorkflowDocument) => doc.nodes.some((n) => nodeType(n.type)?.trigger && n.type !== 'trigger.manual');

export function reviewSummary(doc: WorkflowDocument): ReviewSummary {
  const out: ReviewSummary = { triggers: [], agents: [], commands: [] };
  for (const n of nodesOf(doc)) {
    const c = n.config ?? {};
    if (nodeType(n.type)?.trigger) out.triggers.push({ nodeId: n.id, type: n.type, ...(typeof c.expr === 'string' ? { expr: c.expr } : {}) });
    if (n.type === 'agent') {
      const tools = Array.isArray(c.tools) ? (c.tools as string[]).join(', ') || 'no tools' : 'all tools';
      out.agents.push({ nodeId: n.id, ...(typeof c.agent === 'string' ? { agent: c.agent } : {}), tools: typeof c.agent === 'string' ? `the tools of agent "${c.agent}" (else ${tools})` : tools });
    }
    if (n.type === 'command' && typeof c.command === 'string') out.commands.push({ nodeId: n.id, command: c.command });
  }
  return out;
}

/** The text a person reads before approving. */
export function reviewText(doc: WorkflowDocument): string {
  const s = reviewSummary(doc);
  const lines = [`workflow "${doc.id}"${doc.name ? ` (${doc.name})` : ''}, written by a model, asks to run on its own:`];
  for (const t of s.triggers) lines.push(`- trigger ${t.nodeId}: ${t.type}${t.expr ? ` "${t.expr}"` : ''}`);
  for (const a of s.agents) lines.push(`- agent node ${a.nodeId} may call: ${a.tools}`);
  for (const c of s.commands) lines.push(`- command node ${c.nodeId} runs: ${c.command}`);
  lines.push('', JSON.stringify(doc, null, 2));
  return lines.join('\n');
}
