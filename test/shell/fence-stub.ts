/**
 * A tiny fence-shaped stand-in over temp folders, for service-level tests until src/kernel/fence.ts
 * is on main (the engine-level tests use the real one).
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { badRequest, forbidden, notFound } from '../../src/kernel/errors.js';
import type { FenceLike, FenceRoot } from '../../src/capabilities/shell/types.js';

export function stubFence(workspace: string, mounts: Record<string, string> = {}): FenceLike {
  const roots: FenceRoot[] = [
    { name: 'workspace', path: workspace, kind: 'workspace' },
    ...Object.entries(mounts).map(([name, p]) => ({ name, path: p, kind: 'mount' as const })),
  ];
  return {
    roots: () => roots,
    root(name) {
      const r = roots.find((x) => x.name === name);
      if (!r) throw notFound(`no mounted folder is named "${name}"`);
      return r;
    },
    async resolve(virtual, opts = {}) {
      if (virtual.startsWith('/') || virtual.split('/').includes('..')) throw badRequest(`path "${virtual}" leads outside the workspace and mounts`);
      const segs = virtual.split('/').filter((s) => s && s !== '.');
      const mount = roots.find((r) => r.kind === 'mount' && r.name === segs[0]);
      const root = mount ?? roots[0];
      const rest = mount ? segs.slice(1) : segs;
      if (!rest.length && !opts.allowRoot) throw badRequest('a root is not a valid target');
      const real = path.join(root.path, ...rest);
      const target = await realpath(real).catch(() => real);
      if (!roots.some((r) => target === r.path || target.startsWith(r.path + path.sep))) throw forbidden(`"${virtual}" leads outside the workspace and mounts`);
      return { virtual: (mount ? [root.name, ...rest] : rest).join('/'), root, real, relative: rest.join('/') };
    },
  };
}
