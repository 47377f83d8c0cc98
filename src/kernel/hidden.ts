/**
 * Paths hidden from models: a vault's `agentForbidden` globs hold for every tool a model calls, not
 * only the vault tool. The vaults capability says which areas are hidden; the file tools refuse them
 * (and leave them out of list_dir, grep and glob results), and the shell runs commands in a sandbox
 * where they are not there (docs/security.md).
 */
import path from 'node:path';
import { isInside } from './fence.js';

export interface HiddenArea {
  /** The real, canonical folder the globs are relative to (a vault's root). */
  root: string;
  /** Who hides it, for the refusal: `vault "notes"`. */
  owner: string;
  /** The globs, as written (for the refusal). */
  globs: string[];
  /** Whether a root-relative path (forward slashes) is hidden. */
  hides(rel: string): boolean;
  /** A file inside the area that only a person may change (the vault's schema, which holds the globs). */
  schemaFile?: string;
}

export interface HiddenPaths {
  areas(): Promise<HiddenArea[]>;
  /** Every existing hidden folder and file, real paths, for the sandbox to cover (folders whole). */
  existing(): Promise<Array<{ path: string; dir: boolean }>>;
}

/** Why a real path is hidden from models, or undefined. */
export function hiddenReason(areas: readonly HiddenArea[], real: string, shown: string): string | undefined {
  for (const a of areas) {
    if (!isInside(real, a.root) || real === a.root) continue;
    const rel = path.relative(a.root, real).split(path.sep).join('/');
    if (a.hides(rel)) {
      return `"${shown}" is hidden from models by ${a.owner} (agentForbidden: ${a.globs.join(', ')}); no tool may read, write, list or search it; work without it, or ask the user`;
    }
  }
  return undefined;
}
