/**
 * The virtual paths a file event says changed: the engine's own writes, deletes, renames, copies and
 * new folders (a rename names where it came from and where it went), and the watcher's `fs.changed`
 * for edits made outside. The one reading every index kept from file events shares (the vault and
 * code indexes, atlas staleness); a read changes nothing.
 */
import type { EngineEvent } from '../../kernel/bus.js';

const CHANGES = /^(file\.(written|edited|deleted|renamed|copied)|folder\.created)$/;

export function changedPaths(e: EngineEvent): string[] {
  if (e.kind === 'fs.changed') return Array.isArray(e.paths) ? e.paths.filter((p): p is string => typeof p === 'string') : [];
  if (!CHANGES.test(e.kind)) return [];
  return [e.path, e.to].filter((p): p is string => typeof p === 'string');
}
