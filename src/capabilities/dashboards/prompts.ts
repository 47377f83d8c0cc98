/**
 * What the models read: the default dashboard agent's system prompt, a build's task (the person's
 * prompt, the slots, the catalog and what the tools returned last time), a chat turn's block and the
 * design pass's instructions.
 */
import type { SourceInfo } from './archive.js';
import type { DashboardDefinition, DashboardDocument, WidgetType } from './types.js';

export const DEFAULT_DASHBOARD_SYSTEM = [
  'You build a dashboard: a page of widgets filled from real data. Read the data with your tools,',
  'then call publish_dashboard with one widget per slot (the widget id is the slot id).',
  'Every tool result you read is labelled [source tN]; list the refs a widget is built from in its',
  '`sources`. Use only numbers you read; when something cannot be found, publish the widget with',
  'status "error" and an `error` saying why. publish_dashboard answers which widgets were accepted and',
  'exactly what is wrong with the others: fix those and publish them again (accepted ones are kept).',
  'When every slot is filled, answer with one short sentence.',
].join(' ');

export function catalogBlock(types: Iterable<WidgetType>): string {
  return ['Widget types (type: data shape):', ...[...types].map((t) => `- ${t.name} (${t.renderer}): ${t.shape}. ${t.description}`)].join('\n');
}

export function buildTask(def: DashboardDefinition, types: WidgetType[], last: SourceInfo[], previous?: DashboardDocument): string {
  const slots = def.slots.map((s) => `- ${s.id}: ${s.title}${s.type ? ` [type ${s.type}]` : ''}${s.span ? ` [span ${s.span}]` : ''}${s.hint ? ` (${s.hint})` : ''}`);
  const parts = [def.prompt.trim(), '', `The page "${def.name}" has ${def.layout} columns. Slots to fill:`, ...slots, '', catalogBlock(types)];
  if (last.length) {
    parts.push('', 'Last build read (a summary; read again for current numbers):');
    for (const s of last.slice(0, 30)) parts.push(`- ${s.tool} ${s.args} -> ${s.chars} characters: ${s.preview}`);
  }
  if (previous) parts.push('', `The page now (built ${previous.builtAt}): ${previous.widgets.map((w) => `${w.id}${w.error ? ' (error)' : ''}`).join(', ') || 'empty'}`);
  return parts.join('\n');
}

export function chatBlock(id: string, def: DashboardDefinition, types: WidgetType[], doc?: DashboardDocument): string {
  return [
    `# Dashboard "${id}": ${def.name}`,
    def.description ?? '',
    `This conversation is about the dashboard "${id}" (${def.layout} columns). To change what it shows, call publish_dashboard (it publishes into "${id}"; widgets merge by id).`,
    'Tool results are labelled [source tN]; cite them in a widget\'s `sources`. dashboard_source {ref} reads a source of the page.',
    `Slots: ${def.slots.map((s) => `${s.id} (${s.title})`).join(', ')}`,
    doc ? `The page now (built ${doc.builtAt}): ${doc.widgets.map((w) => `${w.id} [${w.type}]${w.summary ? `: ${w.summary}` : ''}`).join('; ')}` : 'The page has not been built yet.',
    catalogBlock(types),
  ]
    .filter(Boolean)
    .join('\n');
}

export function designSystem(types: WidgetType[], tools: string[], agents: string[]): string {
  return [
    'You design dashboards. Answer with ONE JSON object and nothing else:',
    '{"name": string, "icon"?: string (an emoji), "description"?: string, "refresh"?: string (a cron expression or an interval such as "15m"),',
    ' "layout": integer (columns, 1-12), "tools"?: string[] (exact tool names the build may call), "slots": [{"id", "title", "hint"?, "type"?, "span"?}], "prompt": string (what the build should find out, in words)}',
    `Tools: ${tools.join(', ')}.`,
    agents.length ? `Agents ("agent" field, optional): ${agents.join(', ')}.` : '',
    catalogBlock(types),
  ]
    .filter(Boolean)
    .join('\n');
}
