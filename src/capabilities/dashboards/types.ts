/**
 * Dashboards: what a person asks for (the definition), what a build publishes (the document) and
 * the widget catalog (docs/dashboards.md). The only file another capability may import.
 */
import type { RunAgentOptions } from '../../agent/types.js';

/** What the person asked for: one tile of the page, filled by the build with a widget of the same id. */
export interface Slot {
  id: string;
  title: string;
  hint?: string;
  /** A widget type from the catalog; the build must publish this type into the slot. */
  type?: string;
  /** Columns the tile takes (1..layout). */
  span?: number;
}

/** `dashboards/<id>.json` in the home (PUT /api/dashboards/<id>). */
export interface DashboardDefinition {
  name: string;
  icon?: string;
  description?: string;
  /** A cron expression ("0 * * * *") or an interval ("15m", "1h", "30s", "2d"). */
  refresh?: string;
  /** Skips the refresh schedule (a manual build still runs). */
  paused?: boolean;
  /** The agent the build runs as; the default dashboard agent when absent. */
  agent?: string;
  /** The column count of the auto-grid; a widget's `span` is its only size. */
  layout: number;
  /** What the build's agent may call (exact names); read-only data tools by default. */
  tools?: string[];
  /** The widget types this dashboard may use (catalog names); every type when absent. */
  widgets?: string[];
  slots: Slot[];
  prompt: string;
  /** Accepted for older files and dropped on save: who wrote a definition is the engine's provenance record. */
  author?: Record<string, unknown>;
}

export type WidgetStatus = 'ok' | 'warn' | 'error';

/** One published widget. `runId` is the run that published it (its `sources` are that run's refs). */
export interface Widget {
  id: string;
  type: string;
  title?: string;
  span?: number;
  summary?: string;
  data: unknown;
  sources: string[];
  status?: WidgetStatus;
  error?: string;
  runId?: string;
}

/** What a build publishes; GET /api/dashboards/<id>/doc answers the last complete one. */
export interface DashboardDocument {
  title: string;
  subtitle?: string;
  builtAt: string;
  runId: string;
  widgets: Widget[];
}

/** The renderers a widget type can use; the built-in types carry the same names. */
export const RENDERERS = ['stat', 'table', 'list', 'markdown', 'progress', 'kv', 'chart'] as const;
export type Renderer = (typeof RENDERERS)[number];

/** A widget type: built-in, or added with PUT /api/widgets/<name> on a known renderer. */
export interface WidgetType {
  name: string;
  renderer: Renderer;
  label?: string;
  span?: number;
  description: string;
  builtIn: boolean;
  /** The data shape, in words a model reads. */
  shape: string;
}

/** How the last build ended (kept beside the document: a failed build keeps the previous document). */
export interface BuildOutcome {
  runId: string;
  status: 'completed' | 'failed' | 'stopped';
  at: string;
  error?: string;
}

/**
 * What a chat turn with `dashboard` set gets (POST /api/chat {dashboard}): a system block saying
 * which dashboard and what it shows, and the turn's tools wrapped so every result is archived under a
 * ref for `publish_dashboard` to cite. `detach` ends the binding when the turn ends.
 */
export interface DashboardTurn {
  block: string;
  /** Tool names the turn needs beyond an agent's allowlist. */
  tools: string[];
  attach(runId: string, tools: AgentTools): AgentTools;
  detach(runId: string): void;
}

/** The registry as an agent loop sees it (src/agent/types.ts RunAgentOptions['tools']). */
export type AgentTools = RunAgentOptions['tools'];

export type ResolveDashboard = (id: string) => Promise<DashboardTurn>;
