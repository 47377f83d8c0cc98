/**
 * Skills in the Agent Skills layout: `<skills_dir>/skills/<name>/SKILL.md` with `name` and
 * `description` frontmatter. Two tiers: the workspace (`<workspace>/<skills_dir>/skills`, editable here)
 * and the user's own (`~/<skills_dir>/skills`, read-only here). `skills_dir` defaults to `.claude`, so
 * skills made for Claude Code work unchanged. A workspace skill shadows a user skill of the same name.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { badRequest, notFound } from '../../kernel/errors.js';
import type { FencedReader } from '../../kernel/fenced-read.js';
import { formatFrontmatter, type Home, parseFrontmatter } from '../../kernel/home.js';
import { LIMITS } from '../../kernel/limits.js';
import { PERSON, type ModelAuthor, type Provenance, type ProvenanceStore } from '../../kernel/provenance.js';

export type SkillTier = 'workspace' | 'user';

export interface SkillSummary {
  name: string;
  description: string;
  tier: SkillTier;
  /** Whether agents' prompts list it (user-tier skills follow includeUserTier). */
  included: boolean;
  /** A workspace skill of the same name hides this one. */
  shadowed?: boolean;
  error?: string;
}

export interface Skill {
  name: string;
  description: string;
  body: string;
  tier: SkillTier;
  /** The folder that holds SKILL.md and any files it refers to (real path). */
  dir: string;
  /** The same folder as a model should name it: a workspace virtual path, or ~/... for the user tier. */
  location: string;
  /** SKILL.md as read (who wrote it is known by this text: src/kernel/provenance.ts). */
  text: string;
}

export interface SkillsConfig {
  includeUserTier: boolean;
  /** The folder name under the workspace and the user's home, `.claude` by default. */
  skillsDir: string;
}

export interface SkillsDeps {
  home: Home;
  /** The workspace root (real path). */
  workspace: string;
  /** How a workspace skill is read: a SKILL.md planted as a link out of the fence is no skill. */
  reader: FencedReader;
  /** The user's home folder; injectable so tests never touch the real one. */
  userHome?: string;
  /** Announces changes (`skills.changed {name?, op}`). */
  emit?: (kind: string, payload: Record<string, unknown>) => void;
  history?: () => { record(kind: string, name: string, content: string, note?: string): unknown } | undefined;
  /** Who wrote each workspace skill: a model through a file tool, or a person. */
  provenance?: ProvenanceStore;
}

const CONFIG_FILE = 'skills-config.json';
const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const DEFAULT_CONFIG: SkillsConfig = { includeUserTier: true, skillsDir: '.claude' };

export function checkSkillName(name: string): string {
  if (typeof name !== 'string' || !name || name.length > LIMITS.skillNameChars || !SKILL_NAME.test(name) || name.includes('..')) {
    throw badRequest(`skill name "${String(name)}" may hold only letters, digits, dot, dash and underscore (at most ${LIMITS.skillNameChars}, no path characters), starting with a letter or digit`);
  }
  return name;
}

export type SkillsService = ReturnType<typeof createSkillsService>;

export function createSkillsService(deps: SkillsDeps) {
  const { home } = deps;
  const userHome = deps.userHome ?? os.homedir();

  async function config(): Promise<SkillsConfig> {
    const raw = await home.readJson<Partial<SkillsConfig>>(CONFIG_FILE, {});
    return {
      includeUserTier: typeof raw.includeUserTier === 'boolean' ? raw.includeUserTier : DEFAULT_CONFIG.includeUserTier,
      skillsDir: typeof raw.skillsDir === 'string' && raw.skillsDir ? raw.skillsDir : DEFAULT_CONFIG.skillsDir,
    };
  }

  async function setConfig(body: unknown): Promise<SkillsConfig> {
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('send {includeUserTier: boolean, skillsDir?: string}');
    const b = body as Record<string, unknown>;
    for (const key of Object.keys(b)) if (key !== 'includeUserTier' && key !== 'skillsDir') throw badRequest(`unknown field "${key}"; skills config takes includeUserTier and skillsDir`);
    const next = await config();
    if (b.includeUserTier !== undefined) {
      if (typeof b.includeUserTier !== 'boolean') throw badRequest('includeUserTier must be true or false');
      next.includeUserTier = b.includeUserTier;
    }
    if (b.skillsDir !== undefined) {
      if (typeof b.skillsDir !== 'string' || !/^[A-Za-z0-9._-]+$/.test(b.skillsDir) || b.skillsDir === '.' || b.skillsDir === '..') {
        throw badRequest('skillsDir must be one folder name such as ".claude" (no slashes)');
      }
      next.skillsDir = b.skillsDir;
    }
    await home.writeJson(CONFIG_FILE, next);
    deps.emit?.('skills.changed', { op: 'config' });
    return next;
  }

  const tierRoot = (tier: SkillTier, cfg: SkillsConfig) => path.join(tier === 'workspace' ? deps.workspace : userHome, cfg.skillsDir, 'skills');

  /** A SKILL.md's text: the workspace tier through the fenced reader (what models load), the user tier (the person's own folder, outside every root) as it is. */
  async function skillText(tier: SkillTier, file: string): Promise<string | undefined> {
    if (tier === 'workspace') {
      const read = await deps.reader.readText(file);
      return read.ok ? read.text : undefined;
    }
    try {
      return await fs.readFile(file, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw err;
    }
  }

  async function readSkill(tier: SkillTier, name: string, cfg: SkillsConfig): Promise<Skill | undefined> {
    const dir = path.join(tierRoot(tier, cfg), name);
    const text = await skillText(tier, path.join(dir, 'SKILL.md'));
    if (text === undefined) return undefined;
    const doc = parseFrontmatter(text);
    const description = typeof doc.data.description === 'string' ? doc.data.description : '';
    const location = tier === 'workspace' ? `${cfg.skillsDir}/skills/${name}` : `~/${cfg.skillsDir}/skills/${name}`;
    return { name, description, body: doc.body.replace(/^\n+/, ''), tier, dir, location, text };
  }

  async function namesIn(tier: SkillTier, cfg: SkillsConfig): Promise<string[]> {
    try {
      const entries = await fs.readdir(tierRoot(tier, cfg), { withFileTypes: true });
      return entries.filter((e) => (e.isDirectory() || e.isSymbolicLink()) && SKILL_NAME.test(e.name)).map((e) => e.name).sort();
    } catch {
      return [];
    }
  }

  async function list(): Promise<{ skills: SkillSummary[]; includeUserTier: boolean }> {
    const cfg = await config();
    const skills: SkillSummary[] = [];
    const workspaceNames = new Set<string>();
    for (const tier of ['workspace', 'user'] as const) {
      for (const name of await namesIn(tier, cfg)) {
        try {
          const s = await readSkill(tier, name, cfg);
          if (!s) continue;
          const shadowed = tier === 'user' && workspaceNames.has(name);
          if (tier === 'workspace') workspaceNames.add(name);
          skills.push({ name, description: s.description, tier, included: !shadowed && (tier === 'workspace' || cfg.includeUserTier), ...(shadowed ? { shadowed } : {}) });
        } catch (err) {
          skills.push({ name, description: '', tier, included: false, error: `SKILL.md cannot be read: ${(err as Error).message.split('\n')[0]}` });
        }
      }
    }
    return { skills, includeUserTier: cfg.includeUserTier };
  }

  /** The skill a name resolves to: the workspace tier first, then the user tier when included (or `anyTier`). */
  async function get(name: string, opts: { anyTier?: boolean } = {}): Promise<Skill> {
    checkSkillName(name);
    const cfg = await config();
    const found = (await readSkill('workspace', name, cfg)) ?? (cfg.includeUserTier || opts.anyTier ? await readSkill('user', name, cfg) : undefined);
    if (!found) throw notFound(`no skill "${name}"; GET /api/skills lists the skills`);
    return found;
  }

  async function save(name: string, body: unknown): Promise<Skill> {
    checkSkillName(name);
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('send the skill as {description, body}');
    const b = body as Record<string, unknown>;
    for (const key of Object.keys(b)) if (key !== 'description' && key !== 'body') throw badRequest(`unknown field "${key}"; a skill takes description and body`);
    if (typeof b.description !== 'string' || !b.description.trim()) throw badRequest('description is required: say what the skill does and when to load it (agents choose by it)');
    if (typeof b.body !== 'string') throw badRequest('body must be a string (the skill instructions in markdown)');
    const cfg = await config();
    const file = path.join(tierRoot('workspace', cfg), name, 'SKILL.md');
    let keep: Record<string, unknown> = {};
    try {
      keep = parseFrontmatter((await skillText('workspace', file)) ?? '').data;
    } catch {
      keep = {};
    }
    const text = formatFrontmatter({ ...keep, name, description: b.description.trim() }, b.body.endsWith('\n') || !b.body ? b.body : b.body + '\n');
    await deps.provenance?.record('skill', name, text, PERSON);
    await home.writeAtomic(file, text);
    await deps.history?.()?.record('skill', name, text, 'saved');
    deps.emit?.('skills.changed', { name, op: 'save' });
    return (await readSkill('workspace', name, cfg))!;
  }

  /** Who wrote a skill's SKILL.md as it is now: the user tier, outside every model path, is a person's. */
  const authorOf = (skill: Skill): Provenance => (skill.tier === 'workspace' && deps.provenance ? deps.provenance.of('skill', skill.name, skill.text) : PERSON);

  /** The workspace skill whose SKILL.md `real` is, if any. */
  async function workspaceSkillAt(real: string): Promise<string | undefined> {
    if (path.basename(real) !== 'SKILL.md') return undefined;
    const root = tierRoot('workspace', await config());
    const name = path.basename(path.dirname(real));
    return path.dirname(path.dirname(real)) === (await fs.realpath(root).catch(() => root)) && SKILL_NAME.test(name) ? name : undefined;
  }

  /** A model's file tool wrote `real`: when it is a workspace skill's SKILL.md, the skill is the model's now. */
  async function modelWrote(real: string, author: () => Promise<ModelAuthor>): Promise<void> {
    const name = deps.provenance && (await workspaceSkillAt(real));
    if (!name) return;
    const text = await fs.readFile(real, 'utf8').catch(() => undefined);
    if (text !== undefined) await deps.provenance!.record('skill', name, text, await author());
  }

  /**
   * A model writing a workspace SKILL.md that declares `allowed-tools` (in what it writes, or already
   * in the file it edits): agents such as Claude Code grant those tools without asking, so a person
   * sees it first. A skill that declares nothing is instructions only, and asks nothing.
   */
  async function grants(real: string, written: string): Promise<{ key: string; why: string } | undefined> {
    const name = await workspaceSkillAt(real);
    if (!name) return undefined;
    const current = await fs.readFile(real, 'utf8').catch(() => '');
    const declared = [written, current].map((t) => /^allowed-tools\s*:(.*)$/m.exec(t)?.[1]?.trim()).find((d) => d !== undefined);
    if (declared === undefined) return undefined;
    return { key: 'protected_path(skill-tools)', why: `skill "${name}" declares tools (allowed-tools:${declared ? ` ${declared}` : ''}) that agents such as Claude Code grant without asking` };
  }

  async function remove(name: string): Promise<void> {
    checkSkillName(name);
    const cfg = await config();
    const ws = await readSkill('workspace', name, cfg);
    if (!ws) {
      if (await readSkill('user', name, cfg)) {
        throw badRequest(`skill "${name}" lives in the user tier (${path.join('~', cfg.skillsDir, 'skills', name)}), which is read-only here; delete it there by hand, or hide it from agents with PUT /api/skills-config {includeUserTier: false}`);
      }
      throw notFound(`no skill "${name}"; GET /api/skills lists the skills`);
    }
    await deps.history?.()?.record('skill', name, ws.text, 'deleted');
    // The folder is the skill (SKILL.md plus the files it refers to).
    await fs.rm(ws.dir, { recursive: true, force: true });
    deps.emit?.('skills.changed', { name, op: 'delete' });
  }

  /** Names and descriptions an agent's prompt lists: its `skills:` or every included skill. */
  async function promptBlock(allowed?: string[]): Promise<string> {
    const { skills } = await list();
    const usable = skills.filter((s) => s.included && !s.error && (!allowed || allowed.includes(s.name)));
    if (!usable.length) return '';
    const lines = usable.map((s) => `- ${s.name}: ${s.description || '(no description)'}`);
    return ['# Skills', 'Load a skill with the load_skill tool (by name) when a task matches its description; it returns the full instructions.', ...lines].join('\n');
  }

  const historyAdapter = {
    read: async (name: string) => {
      checkSkillName(name);
      return skillText('workspace', path.join(tierRoot('workspace', await config()), name, 'SKILL.md'));
    },
    write: async (name: string, content: string) => {
      checkSkillName(name);
      const cfg = await config();
      await home.writeAtomic(path.join(tierRoot('workspace', cfg), name, 'SKILL.md'), content);
      deps.emit?.('skills.changed', { name, op: 'restore' });
    },
  };

  return { config, setConfig, list, get, save, remove, promptBlock, historyAdapter, authorOf, modelWrote, grants };
}
