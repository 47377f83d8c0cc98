/**
 * Warnings for a workflow that runs with nobody watching (a webhook or cron trigger): a `command`
 * node the unattended default would refuse, named with the rule that would allow it, so the person
 * learns it when saving, not from a failed run. A command right after a gate is approved there.
 */
import type { NodeServices, WorkflowDocument } from './types.js';

const UNATTENDED_TRIGGERS = new Set(['trigger.webhook', 'trigger.cron']);

export async function unattendedWarnings(doc: WorkflowDocument, services: NodeServices): Promise<string[]> {
  if (!services.unattendedNeeds) return [];
  const triggers = doc.nodes.filter((n) => UNATTENDED_TRIGGERS.has(n.type) && n.config?.paused !== true);
  if (!triggers.length) return [];
  const how = triggers.map((n) => n.type.slice('trigger.'.length)).filter((v, i, all) => all.indexOf(v) === i).join(' and ');
  const warnings: string[] = [];
  for (const node of doc.nodes) {
    if (node.type !== 'command' || typeof node.config?.command !== 'string') continue;
    const into = doc.edges.filter((e) => e.to === node.id);
    const gated = into.length > 0 && into.every((e) => doc.nodes.find((n) => n.id === e.from)?.type === 'gate' && (e.when ?? 'approved') === 'approved');
    if (gated) continue;
    const command = node.config.command;
    const needs = await services.unattendedNeeds(command).catch(() => undefined);
    if (!needs) continue;
    const templated = command.includes('{{') ? ' (judged on its text before templates are filled in)' : '';
    const fix = needs.never
      ? `the denylist refuses it in every run (${needs.why})`
      : needs.keys.length
        ? `add the rule${needs.keys.length > 1 ? 's' : ''} ${needs.keys.join(', ')} (POST /api/permissions/rule) or put a gate just before it`
        : `no rule can allow it (${needs.why}); put a gate just before it`;
    warnings.push(`node "${node.id}" runs ${JSON.stringify(command)}${templated}, which the unattended default will refuse in ${how} runs: ${fix}`);
  }
  return warnings;
}
