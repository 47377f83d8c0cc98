/**
 * Spend and activity reports, derived from the run ledger (nothing stored of their own): a summary of
 * tokens and cost by model, agent, workflow and source, run-level rows, and the rollups behind the
 * `engine_activity` tool. Costs come from prices.ts, overridden by a provider entry's `prices`.
 */
import { badRequest } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import { emptyUsage, type ModelUsage, type RunRecord, type RunStatus, type Usage } from '../../kernel/runs.js';
import type { ModelPrice, ProviderConfig } from '../config/types.js';
import { BUILT_IN_PRICES, costOf, lookupPrice } from './prices.js';

export interface ReportsDeps {
  /** The ledger's records by start time, oldest first (its own index: a range is cut out by binary search). */
  runs: { byStart(): readonly RunRecord[] };
  /** The configured providers (their `prices` override the built-in table). */
  providers?: () => ProviderConfig[];
}

export interface RunRow {
  runId: string;
  source: string;
  status: RunStatus;
  startedAt: number;
  endedAt: number | null;
  durationMs: number | null;
  workflowId: string | null;
  agent: string | null;
  model: string | null;
  provider: string | null;
  sessionId: string | null;
  workItem: string | null;
  parentRunId: string | null;
  usage: Usage;
  /** USD, or null when the model has no known price (or no model was used but tokens were). */
  cost: number | null;
}

export interface Bucket {
  key: string;
  runs: number;
  input: number;
  output: number;
  cached: number;
  reasoning: number;
  /** USD of the priced runs; null when none of the bucket's tokens could be priced. */
  cost: number | null;
  /** Tokens of runs whose model has no known price (counted here, never as zero cost). */
  unpriced: { runs: number; input: number; output: number; cached: number; reasoning: number };
  statuses: Partial<Record<RunStatus, number>>;
}

export const GROUP_BY = ['model', 'agent', 'workflow', 'day', 'source'] as const;
export type GroupBy = (typeof GROUP_BY)[number];
export const RUN_STATUSES: readonly RunStatus[] = ['running', 'completed', 'failed', 'stopped', 'interrupted'];

export interface RunFilter {
  workflow?: string;
  agent?: string;
  model?: string;
  status?: RunStatus;
  source?: string;
  workItem?: string;
  from?: number;
  to?: number;
}

const NONE = '(none)';
/** A chat turn's "workflow" is `chat` (seed 001 §4.4 engine_activity). */
const workflowOf = (r: RunRecord) => r.workflowId ?? (r.source === 'chat' ? 'chat' : NONE);
const tokens = (u: Usage) => u.input + u.output + u.cached + u.reasoning;
/** A run's usage by the model that spent it; records from before the split count as one part. */
const partsOf = (r: RunRecord): ModelUsage[] => (r.models?.length ? r.models : [{ model: r.model, provider: r.provider, usage: r.usage }]);

const emptyBucket = (key: string): Bucket => ({ key, runs: 0, ...emptyUsage(), cost: null, unpriced: { runs: 0, ...emptyUsage() }, statuses: {} });
const addUsage = (to: Usage, u: Usage) => {
  to.input += u.input;
  to.output += u.output;
  to.cached += u.cached;
  to.reasoning += u.reasoning;
};

/** How one report prices a model's part of a run, and a whole run (USD; null when unknown). */
interface Costing {
  part(m: ModelUsage): number | null;
  run(r: RunRecord): number | null;
}

export type ReportsService = ReturnType<typeof createReportsService>;

export function createReportsService(deps: ReportsDeps) {
  /**
   * The costs of one report, with each (provider, model) price looked up once rather than once per run:
   * a model's part (0 when it spent nothing, null when its price is unknown) and a run (the sum of its
   * parts, unknown when any part's is).
   */
  function costing(): Costing {
    const providers = deps.providers?.() ?? [];
    const prices = new Map<string, ModelPrice | undefined>();
    const priceOf = ({ model, provider }: ModelUsage): ModelPrice | undefined => {
      if (!model) return undefined;
      const key = `${provider ?? ''}\u0000${model}`;
      if (prices.has(key)) return prices.get(key);
      let price: ModelPrice | undefined;
      const own = providers.find((p) => p.name === provider)?.prices;
      if (own) price = lookupPrice(model, own);
      for (const p of providers) {
        if (price) break;
        if (p.prices) price = lookupPrice(model, p.prices);
      }
      price ??= lookupPrice(model, BUILT_IN_PRICES);
      prices.set(key, price);
      return price;
    };
    const part = (m: ModelUsage): number | null => {
      if (tokens(m.usage) === 0) return 0;
      const p = priceOf(m);
      return p ? costOf(m.usage, p) : null;
    };
    const run = (r: RunRecord): number | null => {
      let sum = 0;
      for (const m of partsOf(r)) {
        const c = part(m);
        if (c === null) return null;
        sum += c;
      }
      return sum;
    };
    return { part, run };
  }

  function row(r: RunRecord, cost = costing()): RunRow {
    return {
      runId: r.runId,
      source: r.source,
      status: r.status,
      startedAt: r.startedAt,
      endedAt: r.endedAt ?? null,
      durationMs: r.endedAt ? r.endedAt - r.startedAt : null,
      workflowId: r.workflowId ?? null,
      agent: r.agent ?? null,
      model: r.model ?? null,
      provider: r.provider ?? null,
      sessionId: r.sessionId ?? null,
      workItem: r.workItem ?? null,
      parentRunId: r.parentRunId ?? null,
      usage: { ...r.usage },
      cost: cost.run(r),
    };
  }

  /** The first index of `all` whose run started at or after `t` (all is by start time). */
  function firstFrom(all: readonly RunRecord[], t: number): number {
    let lo = 0;
    let hi = all.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (all[mid].startedAt < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The runs started within [from, to], as index bounds [lo, hi) of the ledger's index: two binary searches, no scan. */
  function span(filter: { from?: number; to?: number }): { all: readonly RunRecord[]; lo: number; hi: number } {
    const all = deps.runs.byStart();
    const lo = filter.from === undefined ? 0 : firstFrom(all, filter.from);
    const hi = filter.to === undefined ? all.length : firstFrom(all, filter.to + 1);
    return { all, lo, hi: Math.max(lo, hi) };
  }

  /** Whether a filter names anything besides the time range (then the range's runs are scanned). */
  const labelled = (f: RunFilter) => f.status !== undefined || f.source !== undefined || f.agent !== undefined || f.model !== undefined || f.workItem !== undefined || f.workflow !== undefined;

  /** The runs a filter keeps, oldest first: the time range cut from the index, the labels checked within it. */
  function select(filter: RunFilter): RunRecord[] {
    const { all, lo, hi } = span(filter);
    const out: RunRecord[] = [];
    for (let i = lo; i < hi; i++) {
      const r = all[i];
      if (
        (filter.status === undefined || r.status === filter.status) &&
        (filter.source === undefined || r.source === filter.source) &&
        (filter.agent === undefined || r.agent === filter.agent) &&
        (filter.model === undefined || partsOf(r).some((m) => m.model === filter.model)) &&
        (filter.workItem === undefined || r.workItem === filter.workItem) &&
        (filter.workflow === undefined || workflowOf(r) === filter.workflow)
      )
        out.push(r);
    }
    return out;
  }

  function keyOf(r: RunRecord, by: GroupBy): string {
    switch (by) {
      case 'model':
        return r.model ?? NONE;
      case 'agent':
        return r.agent ?? NONE;
      case 'workflow':
        return workflowOf(r);
      case 'source':
        return r.source;
      case 'day':
        return new Date(r.startedAt).toISOString().slice(0, 10);
    }
  }

  /** The runs' spend under each key of `by` (one bucket, `total`, for 'total'). */
  function rollup(records: RunRecord[], by: GroupBy | 'total', cost = costing()): Bucket[] {
    const buckets = new Map<string, Bucket>();
    for (const r of records) {
      const entries = by === 'model' ? modelEntries(r, cost) : [{ key: by === 'total' ? 'total' : keyOf(r, by), usage: r.usage, cost: cost.run(r) }];
      for (const { key, usage, cost: spent } of entries) {
        let b = buckets.get(key);
        if (!b) buckets.set(key, (b = emptyBucket(key)));
        b.runs++;
        addUsage(b, usage);
        b.statuses[r.status] = (b.statuses[r.status] ?? 0) + 1;
        if (spent === null) {
          b.unpriced.runs++;
          addUsage(b.unpriced, usage);
        } else {
          b.cost = (b.cost ?? 0) + spent;
        }
      }
    }
    const out = [...buckets.values()];
    for (const b of out) if (b.cost !== null) b.cost = Math.round(b.cost * 1e6) / 1e6;
    return by === 'day' ? out.sort((a, b) => a.key.localeCompare(b.key)) : out.sort((a, b) => (b.cost ?? -1) - (a.cost ?? -1) || b.input + b.output - (a.input + a.output));
  }

  /**
   * By model, a run counts under every model that spent in it, with that model's part; the parts of
   * one model reached through two providers make one entry, so the run is counted once under it.
   */
  function modelEntries(r: RunRecord, cost: Costing): Array<{ key: string; usage: Usage; cost: number | null }> {
    const entries = new Map<string, { key: string; usage: Usage; cost: number | null }>();
    for (const m of partsOf(r)) {
      const key = m.model ?? NONE;
      const c = cost.part(m);
      const e = entries.get(key);
      if (!e) {
        entries.set(key, { key, usage: { ...m.usage }, cost: c });
      } else {
        addUsage(e.usage, m.usage);
        e.cost = e.cost === null || c === null ? null : e.cost + c;
      }
    }
    return [...entries.values()];
  }

  /** GET /api/report */
  function summary(filter: { from?: number; to?: number }) {
    const records = select(filter);
    const cost = costing();
    const byModel = rollup(records, 'model', cost);
    return {
      from: filter.from ?? null,
      to: filter.to ?? null,
      currency: 'USD',
      // No runs spent nothing: that total is known, unlike the cost of tokens with no price.
      totals: rollup(records, 'total', cost)[0] ?? { ...emptyBucket('total'), cost: 0 },
      /** Models whose tokens have no price (add `prices` to their provider entry to cost them). */
      unpricedModels: byModel.filter((b) => b.unpriced.runs > 0).map((b) => b.key),
      byModel,
      byAgent: rollup(records, 'agent', cost),
      byWorkflow: rollup(records, 'workflow', cost),
      bySource: rollup(records, 'source', cost),
    };
  }

  /**
   * GET /api/report/runs: newest first. A page of a time range alone (or of everything) is cut
   * straight from the ledger's index, so it costs the same at any ledger size and any offset; a
   * label filter scans the range's runs for its matches and its total.
   */
  function runs(filter: RunFilter, page: { limit: number; offset: number }) {
    const cost = costing();
    if (!labelled(filter)) {
      const { all, lo, hi } = span(filter);
      const rows: RunRow[] = [];
      for (let i = hi - 1 - page.offset; i >= lo && rows.length < page.limit; i--) rows.push(row(all[i], cost));
      return { runs: rows, total: hi - lo, limit: page.limit, offset: page.offset };
    }
    const records = select(filter);
    const rows: RunRow[] = [];
    for (let i = records.length - 1 - page.offset; i >= 0 && rows.length < page.limit; i--) rows.push(row(records[i], cost));
    return { runs: rows, total: records.length, limit: page.limit, offset: page.offset };
  }

  return { summary, runs, rollup, select };
}

// --- query validation (shared by the routes and the tool) -------------------------------------

const REPORT_PARAMS = ['from', 'to'];
const RUNS_PARAMS = ['workflow', 'agent', 'model', 'status', 'source', 'workItem', 'from', 'to', 'limit', 'offset'];

function epoch(name: string, v: unknown): number | undefined {
  if (v === undefined || v === '') return undefined;
  const n = typeof v === 'number' ? v : Number(v);
  if (typeof v === 'string' && !/^\d+$/.test(v.trim())) throw badRequest(`${name} must be a time in epoch milliseconds (a whole number), e.g. ${Date.now()}`);
  if (!Number.isInteger(n) || n < 0) throw badRequest(`${name} must be a time in epoch milliseconds (a whole number), e.g. ${Date.now()}`);
  return n;
}

function text(name: string, v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !v.trim()) throw badRequest(`${name} must be a non-empty string (given once)`);
  return v.trim();
}

function unknownParams(query: Record<string, unknown>, allowed: string[]): void {
  for (const key of Object.keys(query)) if (!allowed.includes(key)) throw badRequest(`unknown query parameter "${key}"; this route takes ${allowed.join(', ')}`);
}

function range(query: Record<string, unknown>): { from?: number; to?: number } {
  const from = epoch('from', query.from);
  const to = epoch('to', query.to);
  if (from !== undefined && to !== undefined && from > to) throw badRequest('from is after to; give from <= to (epoch ms)');
  return { from, to };
}

export function parseReportQuery(query: Record<string, unknown>): { from?: number; to?: number } {
  unknownParams(query, REPORT_PARAMS);
  return range(query);
}

export function parseRunsQuery(query: Record<string, unknown>): { filter: RunFilter; page: { limit: number; offset: number } } {
  unknownParams(query, RUNS_PARAMS);
  const status = text('status', query.status);
  if (status !== undefined && !RUN_STATUSES.includes(status as RunStatus)) throw badRequest(`status must be one of ${RUN_STATUSES.join(', ')}`);
  const limitRaw = query.limit === undefined ? undefined : Number(query.limit);
  if (limitRaw !== undefined && (!Number.isInteger(limitRaw) || limitRaw < 1 || limitRaw > LIMITS.reportRunsLimitCap)) {
    throw badRequest(`limit must be a whole number from 1 to ${LIMITS.reportRunsLimitCap}`);
  }
  const offsetRaw = query.offset === undefined ? 0 : Number(query.offset);
  if (!Number.isInteger(offsetRaw) || offsetRaw < 0) throw badRequest('offset must be a whole number of at least 0');
  return {
    filter: {
      ...range(query),
      workflow: text('workflow', query.workflow),
      agent: text('agent', query.agent),
      model: text('model', query.model),
      source: text('source', query.source),
      workItem: text('workItem', query.workItem),
      status: status as RunStatus | undefined,
    },
    page: { limit: limitRaw ?? LIMITS.reportRunsLimitDefault, offset: offsetRaw },
  };
}
