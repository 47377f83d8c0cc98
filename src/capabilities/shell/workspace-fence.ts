/**
 * INTERIM: a workspace-only fence for the composition root until src/kernel/fence.ts (the multi-root
 * fence, with mounts) is on main; engine.ts then passes the real one and this file goes away.
 * It refuses absolute paths, `..` and anything whose real location lies outside the workspace.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { badRequest, forbidden, notFound } from '../../kernel/errors.js';
import type { FenceLike, FenceRoot } from './types.js';

export function workspaceFence(workspace: string): FenceLike {
  const root: FenceRoot = { name: 'workspace', path: path.resolve(workspace), kind: 'workspace' };
  return {
    roots: () => [root],
    root(name) {
      if (name !== 'workspace') throw notFound(`no mounted folder is named "${name}"; GET /api/mounts lists them`);
      return root;
    },
    async resolve(virtual, opts = {}) {
      if (virtual.includes('\0') || virtual.includes('\\') || virtual.startsWith('/') || virtual.startsWith('~')) {
        throw badRequest(`path "${virtual}" is not a workspace-relative path`);
      }
      const segs = virtual.split('/').filter((s) => s && s !== '.');
      if (segs.some((s) => s.trim() === '..')) throw badRequest(`path "${virtual}" contains ".."; paths cannot climb out of the workspace`);
      if (!segs.length && !opts.allowRoot) throw badRequest(`"${virtual}" is the workspace root; name a file or folder inside it`);
      const real = path.join(root.path, ...segs);
      const base = await realpath(root.path).catch(() => root.path);
      const target = await realpath(real).catch(() => undefined);
      if (target && target !== base && !target.startsWith(base + path.sep)) throw forbidden(`"${virtual}" leads outside the workspace through a symlink`);
      return { virtual: segs.join('/'), root, real, relative: segs.join('/') };
    },
  };
}
