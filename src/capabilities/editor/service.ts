/**
 * The editor helpers (seed 000 §4.19 and §4.1): ghost-text completion, apply of a lazy snippet,
 * and inline edit. What an editor plugin calls is in docs/editor.md.
 */
import type { EngineEvent } from '../../kernel/bus.js';
import type { FencedReader } from '../../kernel/fenced-read.js';
import type { ConfigService } from '../config/types.js';
import type { CompletionsSettings } from '../settings/types.js';
import type { ProviderService } from '../../providers/service.js';
import { createApplier, type ModelPass } from './apply.js';
import { createCompleter } from './complete.js';
import { RecentFiles } from './context.js';
import { inlineEdit } from './inline-edit.js';

export const COMPLETE_DEADLINE_MS = 15_000;

export interface EditorDeps {
  config: ConfigService;
  providers: ProviderService;
  completions: () => CompletionsSettings;
  /** Every file these helpers read or name is judged by it before a model sees anything (a file outside the fence, a note a vault hides). */
  reader: FencedReader;
  modelPass: ModelPass;
  /** The bus, for the files recently opened or edited that completions quote. */
  subscribe: (listener: (e: EngineEvent) => void) => void;
  /** Tests shorten the 15 s completion deadline. */
  completeDeadlineMs?: number;
}

export type EditorService = ReturnType<typeof createEditorService>;

export function createEditorService(deps: EditorDeps) {
  const recent = new RecentFiles();
  const secretsChanged: Array<() => void> = [];
  deps.subscribe((e) => {
    if (e.kind === 'secrets.changed') for (const listener of secretsChanged) listener();
    const file = (e as { path?: unknown }).path;
    if (typeof file !== 'string') return;
    if (e.kind === 'file.read' || e.kind === 'file.written' || e.kind === 'file.edited') recent.touch(file);
    else if (e.kind === 'file.deleted') recent.forget(file);
  });
  const pass = (): ModelPass | undefined => ((deps.config.get().providers ?? []).length ? deps.modelPass : undefined);
  return {
    complete: createCompleter({ config: deps.config, providers: deps.providers, settings: deps.completions, reader: deps.reader, recent, deadlineMs: deps.completeDeadlineMs ?? COMPLETE_DEADLINE_MS, onSecretsChanged: (l) => void secretsChanged.push(l) }),
    apply: createApplier({ reader: deps.reader, modelPass: pass }),
    inlineEdit: (body: unknown) => inlineEdit(pass(), deps.reader, body),
  };
}
