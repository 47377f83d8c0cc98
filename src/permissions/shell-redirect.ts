/**
 * Where a redirection writes. The policy judges the target as text, against the folder the command
 * runs in (always inside the workspace or a mount): a relative path that stays below it is fine; an
 * absolute path, `~`, a `..` that climbs out, a `.git` folder (config and hooks name programs git
 * runs) or a target only known when the shell runs forces a fresh prompt. The sandbox, not this
 * check, is what keeps a write inside; this makes sure a person sees it first.
 */
import type { ShellRedirect } from './shell-parse.js';

const WRITE_OPS = /^(>|>>|>\||&>|&>>|>&|<>|\d*>|\d*>>)$/;
const HARMLESS_TARGETS = /^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$/;

/** Why writing to `r` needs a fresh prompt, or undefined. */
export function redirectRisk(r: ShellRedirect): string | undefined {
  if (!WRITE_OPS.test(r.op)) return undefined;
  const t = r.target;
  // `2>&1`, `>&-`: a descriptor, not a file.
  if (r.op === '>&' && t.static && /^(\d+|-)$/.test(t.text)) return undefined;
  if (!t.static) return `the command writes to ${t.raw}, a file only known when the shell runs it`;
  const path = t.text;
  if (HARMLESS_TARGETS.test(path)) return undefined;
  const where = pathLeaves(path);
  if (where === 'outside') return `the command writes to ${path}, outside the ${path.startsWith('/') || path.startsWith('~') ? 'workspace' : 'folder it runs in'}`;
  if (where === 'git') return `the command writes into ${path}, a .git folder whose configuration and hooks name programs git runs`;
  return undefined;
}

/** Does a path written in a command leave the folder it runs in (absolute, `~`, a `..` that climbs out), or enter a `.git` folder? */
export function pathLeaves(path: string): 'outside' | 'git' | undefined {
  if (path.startsWith('/') || path.startsWith('~') || path === '-') return 'outside';
  let depth = 0;
  for (const part of path.split('/')) {
    if (part === '..') depth--;
    else if (part !== '.' && part !== '') depth++;
    if (depth < 0) return 'outside';
    if (part === '.git') return 'git';
  }
  return undefined;
}
