/**
 * The survey of a defined atlas: one agent run (a ledger run, source `atlas`) that reads every file
 * of each changed unit and calls `record_card` once per unit, then `publish_atlas` with the views the
 * definition asks for. The build's state lives here, keyed by the run, so the two tools know which
 * atlas, units and files a call belongs to; the engine stamps each card's unit and hash, and checks
 * every view against the code (tools.ts).
 */
import { orThrow, type FencedReader } from '../../kernel/fenced-read.js';
import type { Brief } from './brief.js';
import type { Surveyor } from './service.js';
import type { AtlasDefinition, Card, View } from './types.js';

export interface BuildState {
  atlas: string;
  def: AtlasDefinition;
  brief: Brief;
  changed: Set<string>;
  /** Files read in this run (file.read events), by virtual path. */
  read: Set<string>;
  cards: Map<string, Card>;
  views: View[];
  evidence: number;
  runId: string;
  archive(ref: string, text: string): Promise<void>;
  progress: { surveyed: number; cards: number; views: number; phase: string };
}

/** Live builds by run id: what record_card and publish_atlas belong to. */
export const builds = new Map<string, BuildState>();

export interface SurveyDeps {
  archive: (atlas: string, ref: string, text: string) => Promise<void>;
  /** Runs the survey's agent loop in the run (the default atlas agent, or the definition's). */
  runAgent: (opts: { runId: string; emit: (kind: string, payload?: Record<string, unknown>) => void; signal: AbortSignal; agent?: string; system: string; prompt: string; tools: string[] }) => Promise<{ status: string; error?: string }>;
}

export const SURVEY_TOOLS = ['read_file', 'list_dir', 'grep', 'glob', 'read_card', 'atlas_source', 'record_card', 'publish_atlas'];

const SYSTEM = [
  'You survey a codebase for a code map (an atlas). For every unit listed as changed, read each of its files with read_file, then call record_card once for that unit with what the code really does: its role in one or two sentences, its kind, its public surface, internals, dependencies (imports: other units it uses; external packages; stores it reads or writes; events it emits and consumes), files, entry points, and what you are unsure of.',
  'When every changed unit has a card, call publish_atlas once with the views asked for. A graph view has nodes (each names a unit, or files inside the scope) and edges; an edge must be a static import between the two units, or carry evidence: {path, startLine, endLine} of the code that shows the link. A flow view has numbered steps, each on a node of a graph view or a unit.',
  'Never invent a unit, a file or an edge: the engine checks each against the code and rejects what it cannot find.',
].join('\n');

export function createSurveyor(deps: SurveyDeps): Surveyor {
  return async (job) => {
    // The build's run (service.ts started it, and finishes it): the survey is its agent loop.
    const run = job.run;
    const state: BuildState = {
      atlas: job.def.id, def: job.def, brief: job.brief, changed: new Set(job.changed), read: new Set(), cards: new Map(), views: [], evidence: 0, runId: run.id,
      archive: (ref, text) => deps.archive(job.def.id, ref, text), progress: job.progress,
    };
    builds.set(run.id, state);
    job.progress.phase = 'surveying';
    try {
      const units = job.brief.units.filter((u) => state.changed.has(u.id));
      const facts = units.map((u) => {
        const card = job.brief.cards.find((c) => c.unit === u.id)!;
        return `- unit ${u.id} (${u.lines} lines, rank ${u.rank}): files ${u.files.join(', ')}; imports ${card.dependencies.imports.join(', ') || 'none'}; external ${card.dependencies.external.join(', ') || 'none'}`;
      });
      const others = job.brief.units.filter((u) => !state.changed.has(u.id)).map((u) => u.id);
      const prompt = [
        `Atlas "${job.def.name}" over ${job.def.scope.map((s) => s || 'the workspace').join(', ')}.`,
        job.def.prompt ? `The person asks: ${job.def.prompt}` : '',
        units.length ? `Changed units to survey (read every file, then record_card):\n${facts.join('\n')}` : 'No unit changed since the last survey: record no card.',
        others.length ? `Unchanged units (their cards stand; read_card shows one): ${others.join(', ')}` : '',
        job.def.views.length ? `Views to publish: ${job.def.views.map((v) => `${v.id} (${v.kind}): ${v.title}${v.guide ? ` - ${v.guide}` : ''}`).join('; ')}` : 'Publish one graph view of the main units.',
        job.def.flows.length ? `Flows to explain as flow views: ${job.def.flows.join('; ')}` : '',
      ].filter(Boolean).join('\n\n');
      const result = await deps.runAgent({ runId: run.id, emit: (k, p) => run.emit(k, p), signal: run.signal, agent: job.def.agent, system: SYSTEM, prompt, tools: SURVEY_TOOLS });
      if (result.status !== 'completed') throw new Error(result.error ?? `the survey ended ${result.status}`);
      const missing = units.filter((u) => !state.cards.has(u.id)).map((u) => u.id);
      if (missing.length) throw new Error(`the survey recorded no card for ${missing.join(', ')}`);
      return { runId: run.id, cards: [...state.cards.values()], views: state.views };
    } finally {
      builds.delete(run.id);
    }
  };
}

/** An excerpt of a file inside the scope, with its line numbers: what evidence archives. */
export async function excerpt(reader: FencedReader, file: string, start: number, end: number): Promise<string> {
  const lines = orThrow(await reader.readText(file)).text.split('\n');
  if (start < 1 || end < start || end > lines.length) throw new Error(`lines ${start}-${end} are not in ${file} (it has ${lines.length})`);
  return lines.slice(start - 1, end).map((l, i) => `${String(start + i).padStart(5)}  ${l}`).join('\n');
}
