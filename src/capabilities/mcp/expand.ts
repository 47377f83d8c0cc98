/**
 * Variables in a server entry, resolved at connect time: `${workspace}`, `${mounts}` (as a whole
 * argument: one argument per mount path; inside a longer string: the paths joined with the path
 * delimiter), `${mount:<name>}`, and `{{secret:<name>}}` in env and headers. The expanded entry is
 * what the pool compares, so a mount or a secret that changes restarts exactly the servers using it.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { badRequest } from '../../kernel/errors.js';
import type { McpServerEntry } from './types.js';

export interface ExpandContext {
  workspace: string;
  mounts: Array<{ name: string; path: string }>;
  secret(name: string): Promise<string | undefined>;
}

export interface Expanded {
  entry: McpServerEntry;
  /** A hash of everything the connection is made from (secret values included, never stored). */
  fingerprint: string;
}

const SECRET = /\{\{secret:([^}]+)\}\}/g;

export async function expand(name: string, entry: McpServerEntry, ctx: ExpandContext): Promise<Expanded> {
  const vars = (text: string, field: string): string =>
    text.replace(/\$\{(workspace|mounts|mount:([^}]*))\}/g, (_m, v: string, mount?: string) => {
      if (v === 'workspace') return ctx.workspace;
      if (v === 'mounts') return ctx.mounts.map((m) => m.path).join(path.delimiter);
      const found = ctx.mounts.find((m) => m.name === mount);
      if (!found) throw badRequest(`servers.${name}.${field} names \${mount:${mount}}, but no folder is mounted as "${mount}"`);
      return found.path;
    });
  const secrets = async (text: string, field: string): Promise<string> => {
    let out = text;
    for (const match of text.matchAll(SECRET)) {
      const value = await ctx.secret(match[1]);
      if (value === undefined) throw badRequest(`servers.${name}.${field} needs the stored secret named "${match[1]}", which does not exist; add it with POST /api/secrets`);
      out = out.replace(match[0], () => value);
    }
    return out;
  };
  const out: McpServerEntry = { ...entry };
  if (entry.args) out.args = entry.args.flatMap((a, i) => (a === '${mounts}' ? ctx.mounts.map((m) => m.path) : [vars(a, `args[${i}]`)]));
  if (entry.cwd) out.cwd = vars(entry.cwd, 'cwd');
  if (entry.env) {
    out.env = {};
    for (const [k, v] of Object.entries(entry.env)) out.env[k] = await secrets(vars(v, `env.${k}`), `env.${k}`);
  }
  if (entry.headers) {
    out.headers = {};
    for (const [k, v] of Object.entries(entry.headers)) out.headers[k] = await secrets(v, `headers.${k}`);
  }
  if (entry.url) out.url = vars(entry.url, 'url');
  const fingerprint = createHash('sha256').update(JSON.stringify(out)).digest('hex');
  return { entry: out, fingerprint };
}
