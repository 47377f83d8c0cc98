/**
 * Failures outside chat speak (issue 26): a run that fails or is found interrupted makes an error
 * notification (linking to the run) and one stderr line, so a webhook or cron run that failed on
 * the unattended default is not silent. Chat turns and gateway completions are left out: their
 * caller is waiting on that very answer and is told there. A child run (a subworkflow) is left to
 * its parent, which fails with it and reports once.
 */
import type { Bus } from '../../kernel/bus.js';
import type { RunLedger, RunRecord } from '../../kernel/runs.js';
import type { NotifyInput } from '../notifications/types.js';

const TOLD_ELSEWHERE = new Set(['chat', 'gateway']);
const LINE_CHARS = 300;

export function reportRunFailures(deps: { bus: Bus; runs: RunLedger; notify: (input: NotifyInput) => Promise<unknown>; log: (line: string) => void }): () => void {
  const report = (record: RunRecord, what: 'failed' | 'was interrupted', why: string) => {
    if (TOLD_ELSEWHERE.has(record.source) || record.parentRunId) return;
    const name = record.workflowId ? `workflow ${record.workflowId}` : record.title ? `${record.source} "${record.title}"` : record.source;
    const started = record.workflowId && record.source !== 'workflow' ? ` (${record.source})` : '';
    // One line, no stack: the reason is already a sentence (a stack belongs to the engine's own bugs).
    const reason = oneLine(why);
    deps.log(`engine: run ${record.runId} of ${name}${started} ${what}: ${reason}`);
    void deps
      .notify({ level: 'error', title: `${name}${started} ${what}`, body: reason, runId: record.runId, link: `/runs/${record.runId}`, source: 'runs' })
      .catch((err) => deps.log(`engine: could not record the notification for run ${record.runId}: ${(err as Error).message}`));
  };
  for (const record of deps.runs.interruptedAtStart) {
    const resume = record.workflowId ? `; POST /api/runs/${record.runId}/resume resumes it` : '';
    report(record, 'was interrupted', `the engine stopped while it ran${resume}`);
  }
  return deps.bus.subscribe((event) => {
    // Another engine of a pool ran it and told its notifications already (they are shared).
    if (event.kind !== 'run.failed' || !event.runId || deps.bus.relayed(event)) return;
    const record = deps.runs.record(event.runId);
    if (record) report(record, 'failed', typeof event.error === 'string' && event.error ? event.error : 'no reason was given');
  });
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS - 1)}…` : line;
}
