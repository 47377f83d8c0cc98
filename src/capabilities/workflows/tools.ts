/**
 * The six workflow tools of seed 001 §4.7, thin over the same service and validator as the routes.
 * A graph a model saves never widens what a model may do: no `{{secret:...}}` reference and no
 * private-address exception (`allowPrivate`) that a person did not already save on that node.
 * What a model saves is recorded as the model's (src/kernel/provenance.ts): its unattended runs are
 * gated as the model was when it saved. A workflow with triggers is saved disabled and announced as
 * `workflow.proposed` for a person to review; `disabled: false` asks a person first, showing the
 * graph, its triggers and what its agents may call. A change to a person's enabled, triggered
 * workflow is held as a proposal instead of replacing it.
 */
import { defineTool, type AnyTool } from '../../tools/types.js';
import { workflowDocumentSchema } from './schemas.js';
import type { WorkflowsService } from './service.js';
import { SaveRefused } from './store.js';
import { findRefs } from './templates.js';
import { hasTriggers, reviewSummary, reviewText } from './review.js';
import type { NodeSpec, WorkflowDocument } from './types.js';

const graphArg = {
  type: 'object',
  properties: { graph: { ...workflowDocumentSchema, description: 'The workflow document (formatVersion 2). Graph fields may also be given at the top level.' } },
  additionalProperties: true,
} as const;

/** `{graph: {...}}` or the graph's fields at the top level. */
function graphOf(args: Record<string, unknown>): Record<string, unknown> {
  if (args.graph && typeof args.graph === 'object' && !Array.isArray(args.graph)) return args.graph as Record<string, unknown>;
  if (typeof args.graph === 'string') {
    try {
      const parsed = JSON.parse(args.graph) as unknown;
      if (parsed && typeof parsed === 'object') return parsed as Record<string, unknown>;
    } catch {
      // Falls through to the top-level fields.
    }
  }
  const { graph: _g, ...rest } = args;
  return rest;
}

const fixList = (errors: string[], warnings: string[]) =>
  [`The workflow is not valid. Fix:`, ...errors.map((e, i) => `${i + 1}. ${e}`), ...(warnings.length ? ['Warnings (not blocking):', ...warnings.map((w) => `- ${w}`)] : [])].join('\n');

/** Parses a state_set value: JSON when it parses, else the text itself. */
function parseValue(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** What a model may not add to a graph: secret references and private-address exceptions a person did not save. */
export function widening(next: WorkflowDocument, saved: WorkflowDocument | undefined): string[] {
  const problems: string[] = [];
  const before = new Map<string, NodeSpec>((saved?.nodes ?? []).map((n) => [n.id, n]));
  const check = (node: NodeSpec, where: string, old: NodeSpec | undefined) => {
    const config = node.config ?? {};
    const secrets = findRefs(config).filter((r) => r.secret !== undefined);
    const same = old && old.type === node.type && JSON.stringify(old.config ?? {}) === JSON.stringify(config);
    if (secrets.length && !same) {
      problems.push(`${where} uses {{secret:${secrets[0].secret}}}; a model cannot add or change a node that reads a secret. Leave the node as a person saved it, or ask the user to add the secret reference`);
    }
    if (config.allowPrivate === true && !(old && old.config?.allowPrivate === true && old.config?.url === config.url)) {
      problems.push(`${where} sets allowPrivate; only a person can let a node reach private or local addresses. Remove allowPrivate, or ask the user to set it`);
    }
    if (node.type === 'map' && config.node && typeof config.node === 'object') {
      const inner = config.node as { type: string; config?: Record<string, unknown> };
      const oldInner = old?.type === 'map' ? (old.config?.node as NodeSpec | undefined) : undefined;
      check({ id: `${node.id}.node`, type: inner.type, config: inner.config }, `${where} (config.node)`, oldInner ? { ...oldInner, id: `${node.id}.node` } : undefined);
    }
  };
  for (const n of next.nodes) check(n, `node "${n.id}"`, before.get(n.id));
  return problems;
}

export function workflowTools(wf: WorkflowsService): AnyTool[] {
  const stateGet = defineTool<{ key?: string }>({
    name: 'state_get',
    group: 'workflow',
    readOnly: true,
    description: 'Reads the running workflow\'s state: a key, or a dotted path such as "trigger.branch" (the trigger key holds the payload the run started with); omit key for the whole state. Works only inside a workflow run.',
    parameters: { type: 'object', properties: { key: { type: 'string', description: 'A state key or dotted path; omit for the whole state.' } }, additionalProperties: false },
    permission: 'other',
    async run(args, ctx) {
      const run = wf.liveRun(ctx.runId);
      if (!run) return { text: 'state_get works only inside a workflow run; this call is not part of one (in chat there is no workflow state).', isError: true };
      const value = run.readState(args.key);
      return value === undefined ? `state has no value at "${args.key}"` : JSON.stringify(value, null, 2);
    },
  });

  const stateSet = defineTool<{ key: string; value: unknown }>({
    name: 'state_set',
    group: 'workflow',
    description: 'Writes a value into the running workflow\'s state key; the key\'s reducer in the workflow decides how it lands (replace, append to a list, merge into an object, add to a total). value is JSON when it parses, else text. Returns the new value. Works only inside a workflow run.',
    parameters: {
      type: 'object',
      properties: { key: { type: 'string', minLength: 1 }, value: { description: 'JSON (or text) to write' } },
      required: ['key', 'value'],
      additionalProperties: false,
    },
    permission: 'other',
    async run(args, ctx) {
      const run = wf.liveRun(ctx.runId);
      if (!run) return { text: 'state_set works only inside a workflow run; this call is not part of one.', isError: true };
      try {
        const next = run.writeState(args.key, parseValue(args.value), ctx.emit);
        return JSON.stringify(next, null, 2);
      } catch (err) {
        return { text: (err as Error).message, isError: true };
      }
    },
  });

  const listNodeTypes = defineTool({
    name: 'list_node_types',
    group: 'workflow',
    readOnly: true,
    description: 'Lists every workflow node type with its description, config schema, the branches its edges may name in "when", and an example node.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    permission: 'other',
    async run() {
      return JSON.stringify(wf.nodeTypes(), null, 1);
    },
  });

  const getWorkflow = defineTool<{ id: string }>({
    name: 'get_workflow',
    group: 'workflow',
    readOnly: true,
    description: 'Returns a saved workflow\'s JSON document by id (or why the engine rejects its file).',
    parameters: { type: 'object', properties: { id: { type: 'string', minLength: 1 } }, required: ['id'], additionalProperties: false },
    permission: 'other',
    async run(args) {
      const e = wf.store.entry(args.id);
      if (!e) return { text: `there is no workflow "${args.id}"; the workflows are ${wf.store.ids().join(', ') || '(none)'}`, isError: true };
      if (!e.doc) return `workflow "${args.id}" is rejected by the engine: ${e.error}\nIts file holds:\n${e.text.slice(0, 20_000)}`;
      return JSON.stringify(e.doc, null, 2);
    },
  });

  const validateWf = defineTool<Record<string, unknown>>({
    name: 'validate_workflow',
    group: 'workflow',
    readOnly: true,
    description: 'Checks a workflow graph without saving it: a summary (nodes, edges, triggers) when valid, else a numbered fix list; warnings never block. Call list_node_types for the node configs.',
    parameters: graphArg,
    permission: 'other',
    async run(args) {
      const result = wf.store.validate(graphOf(args));
      if (!result.ok) return { text: fixList(result.errors, result.warnings), isError: true };
      const s = result.summary!;
      return [`valid: ${s.nodes} nodes, ${s.edges} edges, triggers: ${s.triggers.join(', ') || '(none: manual runs start at the nodes without incoming edges)'}`, ...result.warnings.map((w) => `warning: ${w}`)].join('\n');
    },
  });

  const saveWf = defineTool<Record<string, unknown>>({
    name: 'save_workflow',
    group: 'workflow',
    description:
      'Saves a workflow graph (formatVersion 2 required; same checks as validate_workflow; an invalid graph saves nothing). A workflow with cron or webhook triggers is saved disabled for a person to review; ' +
      '"disabled": false asks the user to approve it running on its own. Its unattended runs may do only what you may do now without asking. ' +
      'A change to an enabled workflow the user wrote is held for their review. You cannot add secret references or allowPrivate to nodes; a person does that.',
    parameters: graphArg,
    // Enabling a triggered workflow lets it run with nobody watching: only a person's answer does that (no chat mode skips it).
    async permission(args) {
      const graph = graphOf(args);
      const check = graph.disabled === false ? wf.store.validate(graph) : undefined;
      if (!check?.ok || !check.doc || !hasTriggers(check.doc)) return { class: 'other', key: 'save_workflow' };
      return {
        class: 'code',
        key: 'save_workflow(enable)',
        display: reviewText(check.doc),
        protectedPath: 'a workflow a model wrote would start on its own (cron or webhook) with nobody watching',
      };
    },
    async run(args, ctx) {
      const graph = { ...graphOf(args) };
      if (graph.formatVersion !== 2) return { text: 'save_workflow needs "formatVersion": 2 in the document; nothing was saved.', isError: true };
      const check = wf.store.validate(graph);
      if (!check.ok || !check.doc) return { text: fixList(check.errors, check.warnings), isError: true };
      const saved = wf.store.entry(check.doc.id)?.doc;
      const problems = widening(check.doc, saved);
      if (problems.length) return { text: ['Nothing was saved:', ...problems.map((p, i) => `${i + 1}. ${p}`)].join('\n'), isError: true };
      const id = check.doc.id;
      const author = await wf.authorOf(ctx);
      // `disabled: false` with triggers got here only through a person's approval (the permission above).
      const review = hasTriggers(check.doc) && graph.disabled !== false;
      const proposed = (held: boolean) => ctx.emit('workflow.proposed', { workflowId: id, held, ...reviewSummary(check.doc!), sessionId: ctx.sessionId });
      const live = wf.store.entry(id)?.doc;
      if (review && live && !live.disabled && hasTriggers(live) && wf.store.authorOf(id).by === 'person') {
        await wf.store.propose(id, check.doc, author);
        proposed(true);
        return `workflow "${id}" runs on its own and was written by the user, so your version was not saved over it: it waits for the user's review (they see it in the workbench and save it if they agree). Nothing else is needed from you.`;
      }
      if (review) graph.disabled = true;
      try {
        const { doc, warnings } = await wf.store.save(id, graph, 'saved by a model', author);
        if (review) proposed(false);
        return [`saved workflow "${doc.id}" (${doc.nodes.length} nodes)${review ? ', disabled until the user reviews and enables it' : ''}`, ...warnings.map((w) => `warning: ${w}`)].join('\n');
      } catch (err) {
        if (err instanceof SaveRefused) return { text: fixList(err.result.errors, err.result.warnings), isError: true };
        throw err;
      }
    },
  });

  return [stateGet, stateSet, listNodeTypes, getWorkflow, validateWf, saveWf];
}
