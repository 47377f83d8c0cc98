/**
 * Each vault's `agentForbidden` globs as areas hidden from every model tool (src/kernel/hidden.ts),
 * with the vault's schema file as the one file there only a person changes: it holds the globs. A
 * vault whose schema cannot be read hides everything in it until it is fixed (fails closed).
 */
import { readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { HiddenArea, HiddenPaths } from '../../kernel/hidden.js';
import { LIMITS } from '../../kernel/limits.js';
import { forbiddenMatcher, SCHEMA_FILE } from './schema.js';
import type { VaultsCore } from './service.js';

export function vaultHiddenPaths(core: Pick<VaultsCore, 'mounted' | 'get'>): HiddenPaths {
  // Each mounted folder's canonical path, resolved once (a vault re-mounted elsewhere has a new path).
  const canonical = new Map<string, Promise<string>>();
  const real = (p: string) => {
    let r = canonical.get(p);
    if (!r) canonical.set(p, (r = realpath(p).catch(() => p)));
    return r;
  };

  async function areas(): Promise<HiddenArea[]> {
    const out: HiddenArea[] = [];
    for (const summary of core.mounted()) {
      const root = await real(summary.path);
      const schemaFile = path.join(root, SCHEMA_FILE);
      try {
        const v = await core.get(summary.name);
        if (!v.schema.agentForbidden.length) {
          out.push({ root, owner: `vault "${v.name}"`, globs: [], hides: () => false, schemaFile });
          continue;
        }
        out.push({ root, owner: `vault "${v.name}"`, globs: v.schema.agentForbidden, hides: forbiddenMatcher(v.schema), schemaFile });
      } catch {
        out.push({ root, owner: `vault "${summary.name}" (its ${SCHEMA_FILE} cannot be read, so all of it)`, globs: ['**'], hides: () => true, schemaFile });
      }
    }
    return out;
  }

  /** Walks each vault for what its globs hide; a hidden folder is listed whole, not entered. */
  async function existing(): Promise<Array<{ path: string; dir: boolean }>> {
    const found: Array<{ path: string; dir: boolean }> = [];
    for (const area of await areas()) {
      if (!area.globs.length) continue;
      let budget = LIMITS.hiddenWalkEntries;
      const walk = async (dir: string): Promise<void> => {
        const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
        for (const e of entries) {
          if (--budget < 0) return;
          const full = path.join(dir, e.name);
          const rel = path.relative(area.root, full).split(path.sep).join('/');
          if (area.hides(rel)) found.push({ path: full, dir: e.isDirectory() });
          else if (e.isDirectory()) await walk(full);
        }
      };
      const before = found.length;
      await walk(area.root);
      // Too big to walk: the whole vault is hidden rather than part of what it forbids left visible.
      if (budget < 0) found.splice(before, found.length - before, { path: area.root, dir: true });
    }
    return found;
  }

  return { areas, existing };
}
