/**
 * `publish_dashboard` and `dashboard_source` (seed 001 §4.8), thin over the service. The widget
 * items are described, not typed, in the tool schema: the service answers every problem of every
 * widget, which a schema refusal of the whole call could not.
 */
import { defineTool, type AnyTool } from '../../tools/types.js';
import type { DashboardsService } from './service.js';

export function dashboardTools(dashboards: DashboardsService): AnyTool[] {
  const publish = defineTool<{ widgets: unknown; dashboard?: string; title?: string; subtitle?: string; replace?: boolean }>({
    name: 'publish_dashboard',
    group: 'dashboard',
    checkpoint: false, // it writes the engine's own page state, never a file of the workspace
    description:
      'Publishes widgets onto a dashboard page. Each widget: {id (the slot id), type (a widget type), data (the shape of its type), title?, span?, summary?, sources? (refs such as "t1" of the tool results it is built from), status? (ok|warn|error), error?}. ' +
      'Answers which widgets were accepted and, for each rejected one, exactly what to fix. Widgets merge by id across calls; replace: true drops the widgets not in this call. ' +
      'Inside a dashboard build or a chat about a dashboard, leave out `dashboard`; elsewhere (a workflow, a subagent, a chat) name it (only while no build of it runs). Naming one that does not exist creates it: one slot per accepted widget.',
    parameters: {
      type: 'object',
      properties: {
        widgets: { type: 'array', description: 'The widgets: [{id, type, data, title?, span?, summary?, sources?, status?, error?}]', items: { description: 'one widget' } },
        dashboard: { type: 'string', description: 'The dashboard id; only outside its own build. A new id creates the dashboard' },
        title: { type: 'string', description: 'The page title (default: the dashboard name)' },
        subtitle: { type: 'string' },
        replace: { type: 'boolean', description: 'Drop the widgets not in this call' },
      },
      required: ['widgets'],
      additionalProperties: false,
    },
    permission: 'other',
    run: (args, ctx) => dashboards.publish(args, ctx),
  });
  const source = defineTool<{ ref: string; dashboard?: string; run?: string }>({
    name: 'dashboard_source',
    group: 'dashboard',
    readOnly: true,
    description: 'The whole archived tool result behind a widget source ref ("t1", "t2" ...): of this run when it archived one, else of the run that built the page. `dashboard` is needed outside a build or a chat about a dashboard.',
    parameters: {
      type: 'object',
      properties: {
        ref: { type: 'string', description: 'A source ref such as "t3"' },
        dashboard: { type: 'string', description: 'The dashboard id' },
        run: { type: 'string', description: 'The run that archived it (a widget\'s runId); default: this run, then the page\'s' },
      },
      required: ['ref'],
      additionalProperties: false,
    },
    permission: 'other',
    run: async (args, ctx) => {
      const id = args.dashboard ?? dashboards.boundDashboard(ctx.runId);
      if (!id) return { text: 'name the dashboard: dashboard_source {dashboard, ref}', isError: true };
      return dashboards.source(id, args.ref, args.run, ctx.runId);
    },
  });
  return [publish, source];
}
