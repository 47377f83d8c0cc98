/**
 * What GET /api/workflows adds to each document (issue 26): per trigger whether it is active and,
 * for cron, its next fire; and the workflow's last top-level run with why it failed. A person sees
 * at a glance which workflows will run, when, and how the last one went.
 */
import type { RunRecord } from '../../kernel/runs.js';
import { nodeType } from './nodes/index.js';
import type { WorkflowDocument } from './types.js';

export interface TriggerStatus {
  nodeId: string;
  type: string;
  active: boolean;
  /** Why it does not fire on its own: the workflow is disabled, the trigger paused, a cron not armed. */
  reason?: string;
  /** A cron trigger's next fire (ISO 8601, UTC). */
  next?: string;
}

export interface LastRun {
  runId: string;
  status: RunRecord['status'];
  source: string;
  startedAt: number;
  endedAt?: number;
  error?: string;
}

/** What the list shows of a workflow's last top-level run (the ledger keeps it by workflow: RunLedger.lastRunOf). */
export function lastRun(r: RunRecord | undefined): LastRun | null {
  if (!r) return null;
  return { runId: r.runId, status: r.status, source: r.source, startedAt: r.startedAt, ...(r.endedAt ? { endedAt: r.endedAt } : {}), ...(r.error ? { error: r.error } : {}) };
}

export function triggerStatus(doc: WorkflowDocument, cronNext: (key: string) => number | undefined): TriggerStatus[] {
  return doc.nodes
    .filter((n) => nodeType(n.type)?.trigger)
    .map((n) => {
      const base = { nodeId: n.id, type: n.type };
      if (doc.disabled) return { ...base, active: false, reason: 'the workflow is disabled' };
      if (n.config?.paused === true) return { ...base, active: false, reason: 'the trigger is paused' };
      if (n.type !== 'trigger.cron') return { ...base, active: true };
      const next = cronNext(`${doc.id}:${n.id}`);
      return next === undefined ? { ...base, active: false, reason: 'the schedule is not armed or never fires again' } : { ...base, active: true, next: new Date(next).toISOString() };
    });
}
