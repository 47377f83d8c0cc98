/**
 * Work boards (issue 17, seed 000 §4.10, seed 001 §4.6): a board is a folder of human-readable files,
 * `board.json` (this config) and one markdown file per item.
 */

/** The five lane categories of Linear and Plane: they say what a lane means whatever it is called. */
export const LANE_CATEGORIES = ['backlog', 'unstarted', 'started', 'completed', 'canceled'] as const;
export type LaneCategory = (typeof LANE_CATEGORIES)[number];

export const FIELD_TYPES = ['string', 'number', 'boolean', 'date', 'enum', 'list'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** A custom field of one kind: typed, optionally required; `enum` takes one of `values`. */
export interface FieldDef {
  type: FieldType;
  required?: boolean;
  values?: string[];
  description?: string;
}

export interface KindDef {
  name: string;
  fields: Record<string, FieldDef>;
}

export interface LaneDef {
  name: string;
  category: LaneCategory;
}

export interface BoardConfig {
  /** A display name; the project (folder) name when not given. */
  name: string;
  /** Keys are `<prefix>-<n>`: upper-case letters and digits, starting with a letter. */
  prefix: string;
  kinds: KindDef[];
  /** In board order; the first lane is where a new item lands. */
  lanes: LaneDef[];
  /** Lowest to highest. */
  priorities: string[];
  /** The allowed estimate points. */
  estimates: number[];
  /** Declared labels; empty means any label may be used. */
  labels: string[];
  /** Declared assignees; empty means any name may be assigned. */
  members: string[];
}

/** Who changed an item: a person through HTTP, or an agent inside a run through a tool. */
export type Actor = { type: 'person' } | { type: 'agent'; agent?: string; runId?: string };

export interface ActivityLine {
  /** The line as written (without the leading `- `). */
  text: string;
}

/** One work item: the frontmatter, the body and the activity log of `<KEY>.md`. */
export interface WorkItem {
  key: string;
  project: string;
  kind: string;
  title: string;
  status: string;
  assignee: string | null;
  labels: string[];
  estimate: number | null;
  priority: string | null;
  rank: number;
  fields: Record<string, unknown>;
  archived: boolean;
  parent: string | null;
  created: string | null;
  updated: string | null;
  body: string;
  activity: string[];
  /** Set when a hand edit left the file unreadable or inconsistent; the item is still listed. */
  problem?: string;
}

/** A row of a list: the item without its body and activity. */
export type WorkRow = Omit<WorkItem, 'body' | 'activity'>;

export interface ListFilter {
  project?: string;
  status?: string;
  kind?: string;
  label?: string;
  assignee?: string;
  archived?: boolean;
}

export interface BoardListing {
  project: string;
  config: BoardConfig;
  /** Items per lane (of the items listed: the archive or the live ones). */
  counts: Record<string, number>;
  items: WorkRow[];
}

/** What update takes (HTTP body and `work_update` alike); `null` clears a field. */
export interface UpdateInput {
  status?: string;
  title?: string;
  body?: string;
  assignee?: string | null;
  labels?: string[];
  estimate?: number | null;
  priority?: string | null;
  rank?: number;
  fields?: Record<string, unknown>;
  archived?: boolean;
  parent?: string | null;
}

/** What create takes: the same members (but `archived`) plus the kind, and a title is required. */
export interface CreateInput extends Omit<UpdateInput, 'archived' | 'title'> {
  kind: string;
  title: string;
}

export interface WorkLinks {
  runs: Array<{ runId: string; status: string; source: string; agent?: string; title?: string; startedAt: number }>;
  chats: Array<{ sessionId: string }>;
  commits: Array<{ sha: string; subject: string; root: string }>;
}
