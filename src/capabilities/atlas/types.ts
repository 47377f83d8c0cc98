/** Atlas shapes (seed 000 §4.12, seed 001 §4.8; docs/atlas.md). Types only. */

export const CARD_KINDS = ['module', 'service', 'library', 'cli', 'ui', 'data', 'config', 'tests', 'docs', 'other'] as const;
export type CardKind = (typeof CARD_KINDS)[number];

export interface Card {
  /** The unit's id (its folder, relative to the scope) and its content hash when the card was made. */
  unit: string;
  hash: string;
  /** `code`: the standard brief's facts alone; `survey`: a model read every file and recorded it. */
  source: 'code' | 'survey';
  role: string;
  kind: CardKind;
  publicSurface: string[];
  internals: string[];
  dependencies: { imports: string[]; external: string[]; stores: string[]; emits: string[]; consumes: string[] };
  files: string[];
  entryPoints: string[];
  uncertain: string[];
  lines: number;
  runId?: string;
  recordedAt: number;
}

export interface Unit {
  id: string;
  /** Virtual paths of the unit's files. */
  files: string[];
  lines: number;
  hash: string;
  /** PageRank over the reference graph of units (sums to 1 over the map). */
  rank: number;
}

export interface GraphNode {
  id: string;
  label: string;
  /** The unit it stands for, when it is one; its files must lie inside the scope. */
  unit?: string;
  files?: string[];
}

export interface GraphEdge {
  from: string;
  to: string;
  /** `import`: a static import between the two units; `evidence`: backed by an archived excerpt. */
  kind: 'import' | 'evidence';
  weight?: number;
  label?: string;
  evidence?: string;
}

export interface View {
  id: string;
  kind: 'graph' | 'flow';
  title: string;
  guide?: string;
  nodes?: GraphNode[];
  edges?: GraphEdge[];
  groups?: Array<{ id: string; label: string; nodes: string[] }>;
  steps?: Array<{ node: string; text: string }>;
}

export interface AtlasDocument {
  id: string;
  title: string;
  scope: string[];
  builtAt: number;
  kind: 'standard' | 'survey';
  runId?: string;
  units: Unit[];
  cards: Card[];
  views: View[];
}

export interface AtlasDefinition {
  id: string;
  name: string;
  icon?: string;
  description?: string;
  scope: string[];
  agent?: string;
  /** What the person wants drawn: `{id, kind: graph|flow, title, guide?}`; the survey fills them. */
  views: Array<{ id: string; kind: 'graph' | 'flow'; title: string; guide?: string }>;
  /** Flows the person wants explained, in words: "what happens on a chat turn". */
  flows: string[];
  prompt: string;
  /** Made by POST /api/atlas/standard: the code alone, no model. */
  standard?: boolean;
}

export interface AtlasProgress {
  phase: 'idle' | 'scanning' | 'parsing' | 'linking' | 'surveying' | 'publishing';
  files: number;
  parsed: number;
  units: number;
  surveyed: number;
  cards: number;
  views: number;
}
