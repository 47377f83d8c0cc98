/**
 * An atlas's stale units, kept from the file events (issue 42): worked out by a re-brief once, then
 * kept until a file event touches the atlas's scope, the atlas is rebuilt or its scope changes. So
 * `GET /api/atlas` costs the same whatever the size of the scopes when nothing changed. Without the
 * file watcher (`files.watch: false`) an edit made outside the engine is not heard, so every ask
 * works it out again, as before.
 */
import type { EngineEvent } from '../../kernel/bus.js';
import { changedPaths } from '../files/changed-paths.js';

interface Kept {
  /** The document's build time and the scope it was worked out for. */
  key: string;
  scope: string[];
  units: string[];
}

const inScope = (scope: string[], p: string) => scope.some((s) => s === '' || p === s || p.startsWith(`${s}/`));

export class StalenessCache {
  private readonly kept = new Map<string, Kept>();
  /** File events heard so far: a staleness worked out while one arrived may miss it and is not kept. */
  private heard = 0;

  constructor(private readonly watching: () => boolean) {}

  /** The kept answer for this atlas, document and scope, or what `work` answers (kept when nothing changed meanwhile). */
  async get(id: string, builtAt: number, scope: string[], work: () => Promise<string[]>): Promise<string[]> {
    const key = `${builtAt}\u0000${JSON.stringify(scope)}`;
    const kept = this.kept.get(id);
    if (kept?.key === key && this.watching()) return kept.units;
    const before = this.heard;
    const units = await work();
    if (before === this.heard) this.kept.set(id, { key, scope, units });
    return units;
  }

  onEvent(e: EngineEvent): void {
    if (e.kind === 'mounts.changed') return this.forgetAll();
    const paths = changedPaths(e);
    if (!paths.length) return;
    this.heard++;
    for (const [id, k] of this.kept) if (paths.some((p) => inScope(k.scope, p))) this.kept.delete(id);
  }

  forget(id: string): void {
    this.kept.delete(id);
  }

  private forgetAll(): void {
    this.heard++;
    this.kept.clear();
  }
}
