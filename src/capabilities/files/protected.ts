/**
 * Protected paths: what a model writes there becomes a program that git, a shell, an editor or an
 * agent runs later on its own, without a person starting it. A model's write, edit or delete there
 * asks a person first under its own key `protected_path(<name>)`, which no allow rule for the file
 * tools covers, no chat `allow` mode skips, and an unattended run never gets (docs/security.md).
 *
 * The set follows Claude Code's protected paths and Codex's read-only carve-outs:
 * - git internals: any `.git` folder or file (a worktree's or submodule's gitdir link), at any
 *   depth, in any spelling a case-insensitive or NTFS/HFS file system maps to `.git`; any folder
 *   that is, or the write would make, a git dir (HEAD with objects and refs, or commondir), so a
 *   bare repository or a separate gitdir in the workspace counts; the folder `core.hooksPath` names.
 * - hook managers' folders git runs from: `.husky`, `.githooks`.
 * - editor and agent configuration that runs programs: `.vscode`, `.idea`, `.claude` (except the
 *   instruction folders `commands`, `agents`, `skills`), `.codex`, `.mcp.json`.
 * - start-up and tool rc files read from where they lie: shell start-up files, `.gitconfig`,
 *   `.npmrc` (script-shell, node-options), `.yarnrc`/`.yarnrc.yml` (yarnPath).
 * Not protected, on purpose: the project's own code and scripts (`package.json`, `Makefile`, source),
 * which a person runs deliberately and reviews as code; `.gitattributes` and `.gitmodules`, inert
 * without a config that names a driver; `.envrc`, which direnv refuses to run until a person allows
 * each new content.
 */
import { lstat, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isInside, type Fence } from '../../kernel/fence.js';

export interface ProtectedHit {
  /** The permission key a person allows or denies: `protected_path(.git)`. */
  key: string;
  /** Why it is protected, for the prompt. */
  why: string;
}

const GIT = 'git runs the hooks and the programs its config names (core.fsmonitor, core.pager, aliases) on its own';

const FOLDERS: Record<string, string> = {
  '.git': GIT,
  '.husky': 'git runs the hooks in it on commit and push',
  '.githooks': 'git runs the hooks in it on commit and push',
  '.vscode': 'VS Code runs the tasks and programs its files name when the folder is opened',
  '.idea': 'JetBrains IDEs run the tools and run configurations it names',
  '.claude': 'Claude Code runs the hooks and MCP servers its settings name',
  '.codex': 'Codex runs the programs its config names',
};

/** Inside `.claude`, folders of instructions rather than programs (as Claude Code exempts them). */
const CLAUDE_INSTRUCTIONS = new Set(['commands', 'agents', 'skills']);

const SHELL = 'a shell runs it when it starts';
const FILES: Record<string, string> = {
  '.bashrc': SHELL,
  '.bash_profile': SHELL,
  '.bash_login': SHELL,
  '.bash_logout': SHELL,
  '.profile': SHELL,
  '.zshrc': SHELL,
  '.zshenv': SHELL,
  '.zprofile': SHELL,
  '.zlogin': SHELL,
  '.zlogout': SHELL,
  '.gitconfig': GIT,
  '.npmrc': 'npm runs the script-shell and node-options it names',
  '.yarnrc': 'yarn runs the yarn-path it names',
  '.yarnrc.yml': 'yarn runs the yarnPath it names',
  '.mcp.json': 'agents start the MCP servers it names',
};

// Code points HFS+ ignores in names (git's is_hfs_dotgit drops them too).
const IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/** A name as the file systems git protects against would see it: case folded, NTFS trailing dots and spaces gone. */
function normalName(name: string): string {
  const n = name.replace(IGNORABLE, '').toLowerCase().replace(/[. ]+$/, '');
  return n === 'git~1' ? '.git' : n; // NTFS short name of .git
}

const exists = (p: string) => lstat(p).then(
  () => true,
  () => false,
);

/** Which protected path a model's write, edit or delete of `virtual` touches, if any. */
export async function protectedWrite(fence: Fence, virtual: string): Promise<ProtectedHit | undefined> {
  const r = await fence.resolve(virtual);
  for (const loc of new Set([r.real, r.target, r.entry])) {
    const root = fence.roots().filter((x) => isInside(loc, x.path)).sort((a, b) => b.path.length - a.path.length)[0];
    if (!root) continue;
    const hit = byName(loc, root.path) ?? (await gitDir(loc, root.path)) ?? (await hooksPath(loc));
    if (hit) return hit;
  }
  return undefined;
}

const hit = (name: string, why: string): ProtectedHit => ({ key: `protected_path(${name})`, why });

function byName(loc: string, rootPath: string): ProtectedHit | undefined {
  // `.git` anywhere on the path, the root's own path included (a mounted .git folder).
  if (loc.split(path.sep).some((s) => normalName(s) === '.git')) return hit('.git', GIT);
  const rel = path.relative(rootPath, loc).split(path.sep).filter(Boolean).map(normalName);
  for (let i = 0; i < rel.length; i++) {
    const name = rel[i];
    const last = i === rel.length - 1;
    if (!last && FOLDERS[name]) {
      if (name === '.claude' && CLAUDE_INSTRUCTIONS.has(rel[i + 1])) continue;
      return hit(name, FOLDERS[name]);
    }
    // The folder itself (deleting `.vscode`) or a file of that name.
    if (last && (FOLDERS[name] || FILES[name])) return hit(name, FOLDERS[name] ?? FILES[name]);
  }
  return undefined;
}

/** A folder from the root down that is a git dir, or would be one once `loc` is written. */
async function gitDir(loc: string, rootPath: string): Promise<ProtectedHit | undefined> {
  const would = async (dir: string, name: string) => {
    const p = path.join(dir, name);
    return isInside(loc, p) || (await exists(p));
  };
  for (let dir = path.dirname(loc); isInside(dir, rootPath); dir = path.dirname(dir)) {
    if ((await would(dir, 'HEAD')) && ((await would(dir, 'commondir')) || ((await would(dir, 'objects')) && (await would(dir, 'refs'))))) {
      return hit('.git', GIT);
    }
    if (dir === rootPath) break;
  }
  return undefined;
}

/** The enclosing repository's `core.hooksPath` folder, when `loc` is inside it. */
async function hooksPath(loc: string): Promise<ProtectedHit | undefined> {
  for (let dir = path.dirname(loc); ; dir = path.dirname(dir)) {
    const dotGit = path.join(dir, '.git');
    const st = await lstat(dotGit).catch(() => undefined);
    if (st) {
      const configured = await readHooksPath(dotGit, st.isDirectory());
      if (!configured) return undefined;
      const hooks = path.resolve(dir, configured.startsWith('~/') ? path.join(os.homedir(), configured.slice(2)) : configured);
      return isInside(loc, hooks) ? hit('.git', `git runs the hooks in it (core.hooksPath); ${GIT}`) : undefined;
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

async function readHooksPath(dotGit: string, isDir: boolean): Promise<string | undefined> {
  try {
    let gitdir = dotGit;
    if (!isDir) {
      const link = /^gitdir:\s*(.+?)\s*$/m.exec(await readFile(dotGit, 'utf8'));
      if (!link) return undefined;
      gitdir = path.resolve(path.dirname(dotGit), link[1]);
    }
    // A linked worktree keeps its config in the common dir.
    const common = await readFile(path.join(gitdir, 'commondir'), 'utf8').then(
      (c) => path.resolve(gitdir, c.trim()),
      () => gitdir,
    );
    return configValue(await readFile(path.join(common, 'config'), 'utf8'), 'core', 'hookspath');
  } catch {
    return undefined;
  }
}

/** The last value of `key` in `[section]` of a git config text (keys are case-insensitive). */
function configValue(text: string, section: string, key: string): string | undefined {
  let inSection = false;
  let value: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const head = /^\[([^\]\s"]+)(?:\s+"[^"]*")?\]/.exec(line);
    if (head) {
      inSection = head[1].toLowerCase() === section && !line.includes('"');
      continue;
    }
    const kv = /^([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*)$/.exec(line);
    if (inSection && kv && kv[1].toLowerCase() === key) value = kv[2].replace(/^"(.*)"$/, '$1').replace(/\s*[#;].*$/, '');
  }
  return value;
}
