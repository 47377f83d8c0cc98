/**
 * The one workflow validator, shared by PUT /api/workflows/<id>, validate_workflow and save_workflow:
 * a precise fix list (each entry a sentence naming the node or edge and what to change) plus
 * non-blocking warnings. Nothing here throws on any input, however malformed.
 */
import { createRequire } from 'node:module';
import type { Ajv as AjvType, ErrorObject, ValidateFunction } from 'ajv';
import { LIMITS } from '../../kernel/limits.js';
import { exprNodeRefs } from './expr.js';
import { NODE_TYPES, nodeType } from './nodes/index.js';
import { findRefs, TEMPLATE_ROOTS } from './templates.js';
import { REDUCERS, type EdgeSpec, type NodeSpec, type ValidationResult, type WorkflowDocument } from './types.js';

export const WORKFLOW_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
export const NODE_ID = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
const STATE_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

let ajvInstance: AjvType | undefined;
const ajv = () => {
  if (!ajvInstance) {
    const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
    ajvInstance = new Ajv({ allErrors: true, strict: false });
  }
  return ajvInstance;
};
const compiled = new Map<string, ValidateFunction>();

export interface ValidateContext {
  /** Known workflow ids (subworkflow references; a warning when unknown). */
  workflowIds?: () => string[];
  /** Known tool names (agent node tools; a warning when unknown). */
  toolNames?: () => string[];
}

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The format-version sentence: what to change for a document the engine will not read. */
export function formatVersionError(v: unknown): string | undefined {
  if (v === 2) return undefined;
  if (v === undefined) return 'formatVersion is missing; add "formatVersion": 2 (this engine reads workflow format 2)';
  return `formatVersion is ${JSON.stringify(v)}; this engine reads only format 2: rewrite the document in format 2 (nodes with id, type and config; edges with from, to and optional when) and set "formatVersion": 2`;
}

export function validateWorkflow(input: unknown, ctx: ValidateContext = {}): ValidationResult & { doc?: WorkflowDocument } {
  const errors: string[] = [];
  const warnings: string[] = [];
  const done = (doc?: WorkflowDocument): ValidationResult & { doc?: WorkflowDocument } =>
    errors.length
      ? { ok: false, errors, warnings }
      : { ok: true, errors, warnings, doc, summary: doc && { nodes: doc.nodes.length, edges: doc.edges.length, triggers: doc.nodes.filter((n) => nodeType(n.type)?.trigger).map((n) => n.id) } };

  if (!isObj(input)) {
    errors.push('a workflow is one JSON object with id, formatVersion, nodes and edges');
    return done();
  }
  const raw = input;
  const fv = formatVersionError(raw.formatVersion);
  if (fv) errors.push(fv);
  if (typeof raw.id !== 'string' || !WORKFLOW_ID.test(raw.id) || raw.id.length > LIMITS.workflowIdChars) {
    errors.push(`id must be 1-${LIMITS.workflowIdChars} letters, digits, dot, dash or underscore, starting with a letter or digit (got ${JSON.stringify(raw.id)?.slice(0, 80)})`);
  }
  if (raw.group !== undefined && raw.group !== null && typeof raw.group !== 'string') errors.push('group must be a string or null');
  for (const f of ['name', 'description'] as const) if (raw[f] !== undefined && typeof raw[f] !== 'string') errors.push(`${f} must be a string`);
  if (raw.disabled !== undefined && typeof raw.disabled !== 'boolean') errors.push('disabled must be true or false');
  const known = new Set(['id', 'formatVersion', 'group', 'name', 'description', 'disabled', 'state', 'nodes', 'edges']);
  for (const k of Object.keys(raw)) if (!known.has(k)) warnings.push(`field "${k}" is not part of the workflow format and is ignored`);

  // State block.
  const state: Record<string, { reducer: string }> = {};
  if (raw.state !== undefined) {
    if (!isObj(raw.state)) errors.push('state must be an object of {"<key>": {"reducer": "replace" | "append" | "merge" | "add", "initial": <json>}}');
    else
      for (const [key, spec] of Object.entries(raw.state)) {
        if (key === 'trigger') errors.push('state key "trigger" is reserved: it always holds the run\'s payload; remove it from the state block');
        else if (!STATE_KEY.test(key)) errors.push(`state key "${key}" must start with a letter or underscore and hold letters, digits, dash or underscore`);
        if (!isObj(spec) || !REDUCERS.includes(spec.reducer as never)) errors.push(`state key "${key}": reducer must be one of ${REDUCERS.join(', ')}`);
        else {
          state[key] = { reducer: spec.reducer as string };
          if (spec.reducer === 'add' && spec.initial !== undefined && typeof spec.initial !== 'number') errors.push(`state key "${key}": an "add" key starts from a number; set initial to a number`);
          if (spec.reducer === 'append' && spec.initial !== undefined && !Array.isArray(spec.initial)) errors.push(`state key "${key}": an "append" key starts from a list; set initial to a list`);
          if (spec.reducer === 'merge' && spec.initial !== undefined && !isObj(spec.initial)) errors.push(`state key "${key}": a "merge" key starts from an object; set initial to an object`);
        }
      }
  }

  // Nodes.
  const nodes: NodeSpec[] = [];
  if (!Array.isArray(raw.nodes)) errors.push('nodes must be a list of {id, type, config}');
  else if (raw.nodes.length > LIMITS.workflowNodesMax) errors.push(`a workflow holds at most ${LIMITS.workflowNodesMax} nodes (this one has ${raw.nodes.length})`);
  else {
    const seen = new Set<string>();
    raw.nodes.forEach((n, i) => {
      if (!isObj(n)) return void errors.push(`nodes[${i}] must be an object {id, type, config}`);
      const id = n.id;
      const where = typeof id === 'string' ? `node "${id}"` : `nodes[${i}]`;
      if (typeof id !== 'string' || !NODE_ID.test(id)) return void errors.push(`${where}: id must be letters, digits, dot, dash or underscore (no colon), e.g. "fetch-1"`);
      if (seen.has(id)) return void errors.push(`node "${id}" appears twice; node ids must be unique`);
      seen.add(id);
      if (typeof n.type !== 'string' || !nodeType(n.type)) {
        return void errors.push(`${where}: unknown type ${JSON.stringify(n.type)}; use one of ${[...NODE_TYPES.keys()].join(', ')}`);
      }
      if (n.config !== undefined && !isObj(n.config)) return void errors.push(`${where}: config must be an object`);
      if (n.retry !== undefined) {
        const r = n.retry;
        if (!isObj(r) || (r.maxAttempts !== undefined && (!Number.isInteger(r.maxAttempts) || (r.maxAttempts as number) < 1 || (r.maxAttempts as number) > LIMITS.workflowRetryAttemptsMax)) || (r.backoffMs !== undefined && (typeof r.backoffMs !== 'number' || r.backoffMs < 0))) {
          errors.push(`${where}: retry must be {"maxAttempts": 1-${LIMITS.workflowRetryAttemptsMax}, "backoffMs": a number of milliseconds >= 0}`);
        }
      }
      if (n.timeoutMs !== undefined && (!Number.isInteger(n.timeoutMs) || (n.timeoutMs as number) < 1)) errors.push(`${where}: timeoutMs must be a whole number of milliseconds >= 1`);
      nodes.push(n as unknown as NodeSpec);
    });
  }
  const byId = new Map(nodes.map((n) => [n.id, n]));

  for (const n of nodes) checkNode(n, n.config ?? {}, `node "${n.id}"`, false);

  function checkNode(n: Pick<NodeSpec, 'type' | 'id'>, config: Record<string, unknown>, where: string, inMap: boolean) {
    const type = nodeType(n.type)!;
    let validate = compiled.get(type.type);
    if (!validate) compiled.set(type.type, (validate = ajv().compile(type.config)));
    if (!validate(config)) for (const e of validate.errors ?? []) errors.push(`${where}: ${schemaSentence(e)}`);
    for (const msg of type.check?.(config, raw as unknown as WorkflowDocument) ?? []) errors.push(`${where}: ${msg}`);
    // A map's config.node is checked on its own (with {{item}} and {{index}} in scope).
    const own = n.type === 'map' ? { ...config, node: undefined } : config;
    for (const ref of findRefs(own)) {
      if (ref.secret !== undefined) {
        const fields = type.secretFields ?? [];
        const inAllowed = fields.some((f) => findRefs(config[f]).some((r) => r.expr === ref.expr));
        if (!inAllowed) errors.push(`${where}: {{${ref.expr}}} is only allowed in ${fields.length ? fields.map((f) => `config.${f}`).join(', ') : 'http headers'}; secrets never go into prompts, commands, URLs or bodies`);
        continue;
      }
      if (!(TEMPLATE_ROOTS as readonly string[]).includes(ref.root)) {
        errors.push(`${where}: template {{${ref.expr}}} has an unknown root "${ref.root}"; a template starts with ${TEMPLATE_ROOTS.join(', ')} or secret:<name>`);
      } else if ((ref.root === 'item' || ref.root === 'index') && !inMap) {
        errors.push(`${where}: {{${ref.expr}}} only exists inside a map's config.node`);
      } else if (ref.root === 'nodes' && ref.path[0] !== undefined && !byId.has(ref.path[0])) {
        errors.push(`${where}: template {{${ref.expr}}} names node "${ref.path[0]}", which is not in this workflow`);
      }
    }
    if (n.type === 'condition' && typeof config.expr === 'string') {
      try {
        for (const id of exprNodeRefs(config.expr)) if (!byId.has(id)) errors.push(`${where}: config.expr names node "${id}", which is not in this workflow`);
      } catch {
        // Syntax errors are reported by the node type's check.
      }
    }
    if (n.type === 'map' && isObj(config.node) && typeof config.node.type === 'string') {
      if (!nodeType(config.node.type)) errors.push(`${where}: config.node has unknown type "${config.node.type}"; use one of ${[...NODE_TYPES.keys()].filter((t) => !t.startsWith('trigger.')).join(', ')}`);
      else if (!type.check?.(config, raw as unknown as WorkflowDocument).length) checkNode({ id: `${n.id}.node`, type: config.node.type }, isObj(config.node.config) ? config.node.config : {}, `${where} (config.node)`, true);
    }
    if ((n.type === 'workflow' || (n.type === 'map' && config.workflow !== undefined)) && typeof config.workflow === 'string' && ctx.workflowIds && !ctx.workflowIds().includes(config.workflow)) {
      warnings.push(`${where}: subworkflow "${config.workflow}" does not exist yet; the node fails until it does`);
    }
    if (n.type === 'agent' && Array.isArray(config.tools) && ctx.toolNames) {
      const names = new Set(ctx.toolNames());
      const unknown = (config.tools as unknown[]).filter((t) => typeof t === 'string' && !names.has(t));
      if (unknown.length) warnings.push(`${where}: config.tools names ${unknown.join(', ')}, which no registered tool is called (exact names only)`);
    }
    if (n.type === 'trigger.webhook' && !inMap && config.secret === undefined) warnings.push(`${where}: this webhook has no secret; any local process can start the workflow. Set config.secret`);
    if (n.type === 'state' && typeof config.key === 'string' && config.key !== 'trigger' && !state[config.key]) {
      warnings.push(`${where}: state key "${config.key}" is not declared in the state block; it is written with the replace reducer`);
    }
  }

  // Edges.
  const edges: EdgeSpec[] = [];
  if (!Array.isArray(raw.edges)) {
    if (raw.edges !== undefined) errors.push('edges must be a list of {from, to, when?}');
  } else {
    const seenEdges = new Set<string>();
    raw.edges.forEach((e, i) => {
      if (!isObj(e) || typeof e.from !== 'string' || typeof e.to !== 'string') return void errors.push(`edges[${i}] must be {"from": "<node id>", "to": "<node id>", "when"?: "<branch>"}`);
      const label = `edge ${e.from} -> ${e.to}`;
      let ok = true;
      if (!byId.has(e.from)) (errors.push(`${label}: there is no node "${e.from}"`), (ok = false));
      if (!byId.has(e.to)) (errors.push(`${label}: there is no node "${e.to}"`), (ok = false));
      if (e.when !== undefined && typeof e.when !== 'string') (errors.push(`${label}: when must be a string`), (ok = false));
      if (!ok) return;
      const from = nodeType(byId.get(e.from)!.type)!;
      if (nodeType(byId.get(e.to)!.type)!.trigger) errors.push(`${label}: a trigger cannot be the target of an edge; triggers only start runs`);
      if (typeof e.when === 'string' && e.when !== 'error' && !(from.branches ?? []).includes(e.when)) {
        errors.push(`${label}: when "${e.when}" is not a branch of a ${from.type} node; use ${[...(from.branches ?? []), 'error'].map((b) => `"${b}"`).join(', ')} or leave when out`);
      }
      const key = `${e.from}\u0000${e.to}\u0000${e.when ?? ''}`;
      if (seenEdges.has(key)) warnings.push(`${label}${e.when ? ` (${e.when})` : ''} appears twice`);
      seenEdges.add(key);
      edges.push({ from: e.from, to: e.to, ...(typeof e.when === 'string' ? { when: e.when } : {}) });
    });
  }

  if (!errors.length) graphChecks(nodes, edges, state, errors, warnings);
  if (errors.length) return done();
  const doc: WorkflowDocument = {
    id: raw.id as string,
    formatVersion: 2,
    group: (raw.group as string | null | undefined) ?? null,
    ...(raw.name !== undefined ? { name: raw.name as string } : {}),
    ...(raw.description !== undefined ? { description: raw.description as string } : {}),
    ...(raw.disabled !== undefined ? { disabled: raw.disabled as boolean } : {}),
    ...(raw.state !== undefined ? { state: raw.state as WorkflowDocument['state'] } : {}),
    nodes,
    edges,
  };
  return done(doc);
}

/** Cycles need a way out; a `replace` key may not be written by two branches that can run side by side; unreachable nodes warn. */
function graphChecks(nodes: NodeSpec[], edges: EdgeSpec[], state: Record<string, { reducer: string }>, errors: string[], warnings: string[]) {
  const out = new Map<string, EdgeSpec[]>(nodes.map((n) => [n.id, []]));
  for (const e of edges) out.get(e.from)!.push(e);
  const conditional = (e: EdgeSpec) => e.when !== undefined || nodeType(nodes.find((n) => n.id === e.from)!.type)?.defaultBranch !== undefined;

  for (const scc of stronglyConnected(nodes.map((n) => n.id), out)) {
    const members = new Set(scc);
    const inner = edges.filter((e) => members.has(e.from) && members.has(e.to));
    if (scc.length === 1 && !inner.length) continue;
    if (!inner.some(conditional)) {
      errors.push(`nodes ${scc.map((id) => `"${id}"`).join(', ')} form a cycle without a way out: every edge in it is always taken, so it would loop forever. Put a condition (or gate) in the loop and leave by its other branch`);
    }
  }

  // Reachability (for parallel writes and unreachable nodes).
  const reach = new Map<string, Set<string>>();
  const reachFrom = (id: string): Set<string> => {
    let r = reach.get(id);
    if (r) return r;
    r = new Set();
    const stack = [id];
    while (stack.length) for (const e of out.get(stack.pop()!) ?? []) if (!r.has(e.to)) (r.add(e.to), stack.push(e.to));
    reach.set(id, r);
    return r;
  };
  // Two nodes can never both run when some node (a gate, a condition) reaches each only through a
  // different one of its branches: approved and rejected never both happen. (Inside a loop the two
  // reach each other, so they are in order anyway.)
  const roots = nodes.filter((n) => !edges.some((e) => e.to === n.id)).map((n) => n.id);
  const reachableWithout = (cut: (e: EdgeSpec) => boolean): Set<string> => {
    const seen = new Set(roots);
    const stack = [...roots];
    while (stack.length) for (const e of out.get(stack.pop()!) ?? []) if (!cut(e) && !seen.has(e.to)) (seen.add(e.to), stack.push(e.to));
    return seen;
  };
  const branchOf = (e: EdgeSpec) => e.when ?? nodeType(nodes.find((n) => n.id === e.from)!.type)?.defaultBranch ?? 'success';
  const exclusive = (a: string, b: string): boolean =>
    nodes.some((fork) => {
      const branches = new Set((out.get(fork.id) ?? []).map(branchOf));
      if (branches.size < 2) return false;
      const onlyThrough = (id: string) => [...branches].find((br) => !reachableWithout((e) => e.from === fork.id && branchOf(e) === br).has(id));
      const ba = onlyThrough(a);
      const bb = onlyThrough(b);
      return ba !== undefined && bb !== undefined && ba !== bb;
    });
  const writers = new Map<string, string[]>();
  for (const n of nodes) {
    const key = nodeType(n.type)?.writes?.(n.config ?? {});
    if (key && (state[key]?.reducer ?? 'replace') === 'replace') writers.set(key, [...(writers.get(key) ?? []), n.id]);
  }
  for (const [key, ids] of writers) {
    for (let i = 0; i < ids.length; i++)
      for (let j = i + 1; j < ids.length; j++) {
        if (!reachFrom(ids[i]).has(ids[j]) && !reachFrom(ids[j]).has(ids[i]) && !exclusive(ids[i], ids[j])) {
          errors.push(`nodes "${ids[i]}" and "${ids[j]}" both write the replace key "${key}" on parallel branches, so which one wins depends on timing; give the key an append or merge reducer, or put one node after the other`);
        }
      }
  }
  const reachable = new Set(roots);
  for (const r of roots) for (const id of reachFrom(r)) reachable.add(id);
  const lost = nodes.filter((n) => !reachable.has(n.id)).map((n) => n.id);
  if (lost.length) warnings.push(`nodes ${lost.map((id) => `"${id}"`).join(', ')} cannot be reached from a trigger or a start node and never run`);
}

function stronglyConnected(ids: string[], out: Map<string, EdgeSpec[]>): string[][] {
  // Tarjan, iterative so a 10 000-node chain cannot overflow the stack.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const result: string[][] = [];
  for (const start of ids) {
    if (idx.has(start)) continue;
    const work: Array<{ id: string; i: number }> = [{ id: start, i: 0 }];
    idx.set(start, index);
    low.set(start, index++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const top = work[work.length - 1];
      const edges = out.get(top.id) ?? [];
      if (top.i < edges.length) {
        const to = edges[top.i++].to;
        if (!idx.has(to)) {
          idx.set(to, index);
          low.set(to, index++);
          stack.push(to);
          onStack.add(to);
          work.push({ id: to, i: 0 });
        } else if (onStack.has(to)) low.set(top.id, Math.min(low.get(top.id)!, idx.get(to)!));
        continue;
      }
      work.pop();
      if (work.length) low.set(work[work.length - 1].id, Math.min(low.get(work[work.length - 1].id)!, low.get(top.id)!));
      if (low.get(top.id) === idx.get(top.id)) {
        const scc: string[] = [];
        let x: string;
        do {
          x = stack.pop()!;
          onStack.delete(x);
          scc.push(x);
        } while (x !== top.id);
        result.push(scc.reverse());
      }
    }
  }
  return result;
}

function schemaSentence(e: ErrorObject): string {
  const at = e.instancePath ? `config${e.instancePath.replace(/\//g, '.')}` : 'config';
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `${at}.${String(p.missingProperty)} is missing`;
    case 'additionalProperties':
      return `${at}.${String(p.additionalProperty)} is not a field of this node type`;
    case 'type':
      return `${at} must be ${String(p.type)}`;
    case 'enum':
      return `${at} must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'minLength':
      return `${at} must not be empty`;
    default:
      return `${at} ${e.message ?? 'is invalid'}`;
  }
}
