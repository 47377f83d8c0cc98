/**
 * Mounted folders, persisted in <home>/mounts.json as `{ mounts: [{ name, path }] }`.
 * A mount's path is stored real (symlinks resolved) so the fence can tell when the folder is later
 * replaced by a symlink pointing elsewhere.
 */
import { lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { badRequest, conflict, notFound } from '../../kernel/errors.js';
import { isInside, type Root } from '../../kernel/fence.js';
import { HOME_LAYOUT, type Home } from '../../kernel/home.js';
import { LIMITS } from '../../kernel/limits.js';

export interface Mount {
  name: string;
  path: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export class MountStore {
  private mounts: Mount[] = [];

  constructor(
    private readonly home: Home,
    private readonly workspace: () => string,
  ) {}

  async load(): Promise<void> {
    const data = await this.home.readJson<{ mounts?: Mount[] }>(HOME_LAYOUT.mounts, { mounts: [] });
    this.mounts = (Array.isArray(data.mounts) ? data.mounts : []).filter(
      (m) => m && typeof m.name === 'string' && typeof m.path === 'string' && NAME.test(m.name),
    );
  }

  list(): Mount[] {
    return this.mounts.map((m) => ({ ...m }));
  }

  has(name: string): boolean {
    return this.mounts.some((m) => m.name === name);
  }

  roots(): Root[] {
    return this.mounts.map((m) => ({ name: m.name, path: m.path, kind: 'mount' as const }));
  }

  async add(input: { path?: unknown; name?: unknown }): Promise<Mount> {
    if (typeof input.path !== 'string' || !input.path.trim()) throw badRequest('send {"path": "/absolute/folder", "name"?: "short-name"} to mount a folder');
    if (!path.isAbsolute(input.path)) throw badRequest(`mount path "${input.path}" must be absolute`);
    let real: string;
    try {
      real = await realpath(input.path);
    } catch {
      throw notFound(`folder ${input.path} does not exist; create it first or check the spelling`);
    }
    if (!(await stat(real)).isDirectory()) throw badRequest(`${input.path} is a file; mount a folder`);
    if (real === path.parse(real).root) throw badRequest('mounting the filesystem root is refused; mount a project folder');
    const ws = this.workspace();
    if (isInside(real, ws)) throw badRequest(`${input.path} is inside the workspace and already reachable; mount a folder outside it`);
    const homeReal = await realpath(this.home.root).catch(() => this.home.root);
    if (isInside(real, homeReal)) throw badRequest(`${input.path} is inside the engine home, which holds engine state; mount a project folder`);
    const name = input.name === undefined || input.name === '' ? defaultName(real) : input.name;
    if (typeof name !== 'string' || !NAME.test(name) || name.length > LIMITS.mountNameChars || name === 'workspace') {
      throw badRequest(
        `mount name ${JSON.stringify(name)} is not valid; use letters, digits, dot, dash or underscore (starting with a letter or digit, at most ${LIMITS.mountNameChars}), and not "workspace"`,
      );
    }
    const byName = this.mounts.find((m) => m.name === name);
    if (byName) throw conflict(`a mount named "${name}" already exists (${byName.path}); choose another name`);
    // A mount name is the first segment of its virtual paths, so it would hide a workspace entry of that name.
    if (await lstat(path.join(ws, name)).catch(() => undefined)) {
      throw conflict(`the workspace already has a top-level "${name}", which a mount of that name would hide; send another "name"`);
    }
    const byPath = this.mounts.find((m) => m.path === real);
    if (byPath) throw conflict(`${real} is already mounted as "${byPath.name}"`);
    const mount = { name, path: real };
    this.mounts = [...this.mounts, mount];
    await this.save();
    return { ...mount };
  }

  async remove(name: string): Promise<Mount> {
    const found = this.mounts.find((m) => m.name === name);
    if (!found) throw notFound(`no mounted folder is named "${name}"; GET /api/mounts lists them`);
    this.mounts = this.mounts.filter((m) => m !== found);
    await this.save();
    return { ...found };
  }

  private save(): Promise<void> {
    return this.home.writeJson(HOME_LAYOUT.mounts, { mounts: this.mounts });
  }
}

function defaultName(real: string): string {
  const cleaned = path.basename(real).replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  return (cleaned || 'mount').slice(0, LIMITS.mountNameChars);
}
