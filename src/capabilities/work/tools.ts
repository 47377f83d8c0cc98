/**
 * The five work tools (seed 001 §4.6). They call the same core functions as the routes; the only
 * difference is the attribution of the activity line: the agent and its run instead of a person.
 */
import { bool, str } from '../../http/schemas.js';
import { defineTool, type ToolContext } from '../../tools/types.js';
import { formatItem } from './item-file.js';
import { createProps, filterProps, updateProps } from './schemas.js';
import type { WorkService } from './service.js';
import type { Actor, CreateInput, ListFilter, UpdateInput } from './types.js';

const agentOf = (ctx: ToolContext): Actor => ({ type: 'agent', agent: ctx.agent, runId: ctx.runId });
const projectArg = str('the board; needed only when two boards share the key prefix');
const keyArg = str('the item key, e.g. ENG-12');

export function workTools(work: WorkService) {
  const list = defineTool<ListFilter>({
    name: 'work_list',
    group: 'work',
    description:
      'List work items on the boards: one row per item (KEY, title, status, kind, assignee) and the item count of every lane. ' +
      'Omit project for every board. Filters: status (a lane), kind, label, assignee; archived: true lists the archive. A filter naming something the board lacks is an error that names the valid values.',
    parameters: { type: 'object', properties: { project: str('the board; omit for all boards'), ...filterProps, archived: bool('true lists archived items') }, additionalProperties: false },
    permission: 'other',
    async run(args) {
      const boards = work.list(args);
      if (!boards.length) return 'no boards yet; a person starts one with PUT /api/work/<project>';
      return boards
        .map((b) => {
          const head = `board ${b.project} (${b.config.prefix}): ${Object.entries(b.counts).map(([lane, n]) => `${lane} ${n}`).join(' · ')}${args.archived ? ' (archived items)' : ''}`;
          const rows = b.items.map((i) => [i.key, i.title, i.status, i.kind, i.assignee ?? '-'].join(' | '));
          return [head, rows.length ? 'KEY | title | status | kind | assignee' : '(no matching items)', ...rows].join('\n');
        })
        .join('\n\n');
    },
  });

  const get = defineTool<{ key: string; project?: string }>({
    name: 'work_get',
    group: 'work',
    description: 'Read one work item: its frontmatter (kind, title, status, assignee, labels, estimate, priority, rank, fields, archived, parent), its markdown body and its activity log.',
    parameters: { type: 'object', properties: { key: keyArg, project: projectArg }, required: ['key'], additionalProperties: false },
    permission: 'other',
    async run(args) {
      const item = work.get(args.key, args.project);
      const text = await work.store.readItemText(item.project, item.key);
      return `${item.project}/${item.key}\n${text ?? formatItem(item, '(activity not on disk)')}`;
    },
  });

  const create = defineTool<CreateInput & { project: string }>({
    name: 'work_create',
    group: 'work',
    description:
      'Create a work item on a board; it gets the next key (PREFIX-n) and lands in the board\'s first lane. kind must be one of the board\'s kinds and fields must match what that kind declares (errors name the valid ones). Returns the key.',
    parameters: {
      type: 'object',
      properties: { project: str('the board'), ...Object.fromEntries(Object.entries(createProps).filter(([k]) => k !== 'status' && k !== 'rank')) },
      required: ['project', 'kind', 'title'],
      additionalProperties: false,
    },
    permission: 'other',
    async run(args, ctx) {
      const { project, ...input } = args;
      const { key, item } = await work.create(project, input, agentOf(ctx));
      return `created ${key} (${item.kind}) in ${item.status}`;
    },
  });

  const update = defineTool<UpdateInput & { key: string; project?: string }>({
    name: 'work_update',
    group: 'work',
    description:
      'Change a work item: status (a lane), title, body (replaces everything above the Activity heading), assignee, labels, estimate, priority, rank, fields (merged; null removes one), archived. Each call appends one activity line attributed to you. Returns "KEY: what changed".',
    parameters: { type: 'object', properties: { key: keyArg, project: projectArg, ...updateProps }, required: ['key'], additionalProperties: false },
    permission: 'other',
    async run(args, ctx) {
      const { key, project, ...input } = args;
      const { change, item } = await work.update(key, project, input, agentOf(ctx));
      return `${item.key}: ${change}`;
    },
  });

  const comment = defineTool<{ key: string; text: string; project?: string }>({
    name: 'work_comment',
    group: 'work',
    description: 'Add a comment to a work item\'s activity log (one dated line attributed to you).',
    parameters: { type: 'object', properties: { key: keyArg, text: str('the comment'), project: projectArg }, required: ['key', 'text'], additionalProperties: false },
    permission: 'other',
    async run(args, ctx) {
      const item = await work.comment(args.key, args.project, args.text, agentOf(ctx));
      return `commented on ${item.key}`;
    },
  });

  return [list, get, create, update, comment];
}
