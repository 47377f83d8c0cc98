/**
 * A shadow repository: a git dir in the engine home (`checkpoints/shadows/<id>`) over a root's own
 * files as its work tree. It has its own index and refs; the user's `.git`, index, stash and refs
 * are never read or written (git is pointed at the shadow with GIT_DIR/GIT_WORK_TREE and ignores
 * every `.git` inside the work tree). Ignore files in the work tree are respected. The shadow's index
 * is only a stat cache: it makes the next snapshot hash only what changed.
 *
 * A nested repository is skipped, never asked: once git would keep it as a gitlink, every later
 * `add -A` runs `git status` inside it, with that repository's own configuration (its filters,
 * fsmonitor, hooks), and no setting of ours reaches `add`'s check. So a nested repository found by
 * a snapshot is dropped from the shadow's index and excluded from then on (`nested-repos`).
 */
import { createHash } from 'node:crypto';
import { appendFile, lstat, mkdir, readFile, realpath, rm, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { EngineError } from '../../kernel/errors.js';
import { isInside } from '../../kernel/fence.js';
import { firstLine, git, gitOk, lit, nulFields, type GitOptions, type GitResult } from './exec.js';

const IDENTITY = { GIT_AUTHOR_NAME: 'Workbench Engine', GIT_AUTHOR_EMAIL: 'checkpoints@engine.local', GIT_COMMITTER_NAME: 'Workbench Engine', GIT_COMMITTER_EMAIL: 'checkpoints@engine.local' };
/** Never worth a checkpoint, whatever the work tree's ignore files say (reinstallable, huge). */
const DEFAULT_EXCLUDES = ['node_modules/', '.DS_Store'];

/** Nested repositories found in the work tree, as exclude lines (kept in the shadow's git dir). */
const NESTED = 'nested-repos';

/** A path as a gitignore pattern matching only itself (wildcards, a leading ! or #, trailing spaces escaped). */
function literalPattern(rel: string): string {
  return rel.replace(/[\\*?[]/g, '\\$&').replace(/^[!#]/, '\\$&').replace(/ $/, '\\ ');
}

export interface ShadowRoot {
  /** `workspace`, a mount name, or `@memory`. */
  name: string;
  /** The work tree (real path). */
  path: string;
  /** Prefix of virtual paths in this root ('' for the workspace, `docs/`, `@memory/`). */
  prefix: string;
  /** Extra ignore lines (the engine home inside a mount, memory's own snapshots). */
  excludes: string[];
}

export class Shadow {
  readonly gitDir: string;
  private ready: Promise<void> | undefined;

  constructor(
    shadowsDir: string,
    readonly root: ShadowRoot,
    private readonly home: string,
  ) {
    const id = createHash('sha256').update(root.path).digest('hex').slice(0, 16);
    this.gitDir = path.join(shadowsDir, `${root.name.replace(/[^A-Za-z0-9._-]/g, '_')}-${id}`);
  }

  /** Runs git against this shadow (isolated from every user and system configuration). */
  run(args: string[], opts: Partial<GitOptions> = {}): Promise<GitResult> {
    return git(['-c', 'advice.addEmbeddedRepo=false', ...args], {
      ...opts,
      cwd: this.root.path,
      ceilings: [this.home],
      isolated: true,
      env: { GIT_DIR: this.gitDir, GIT_WORK_TREE: this.root.path, ...IDENTITY, ...(opts.env ?? {}) },
    });
  }

  private ok(args: string[], opts: Partial<GitOptions> = {}): Promise<GitResult> {
    return gitOk(args, { ...opts, cwd: this.root.path, ceilings: [this.home], isolated: true, env: { GIT_DIR: this.gitDir, GIT_WORK_TREE: this.root.path, ...IDENTITY, ...(opts.env ?? {}) } });
  }

  /** Creates the git dir once; the excludes are rewritten on every engine start (the home may have moved). */
  private ensure(): Promise<void> {
    return (this.ready ??= (async () => {
      await mkdir(this.root.path, { recursive: true });
      const fresh = !(await lstat(path.join(this.gitDir, 'HEAD')).catch(() => undefined));
      if (fresh) {
        await mkdir(path.dirname(this.gitDir), { recursive: true });
        await gitOk(['init', '-q', '--bare', this.gitDir], { cwd: path.dirname(this.gitDir), ceilings: [this.home], isolated: true });
        // The index of a 50 000-file root is ~5 MB: version 4 and a split index keep each snapshot's rewrite small.
        const settings = [['core.bare', 'false'], ['core.untrackedCache', 'true'], ['index.version', '4'], ['core.splitIndex', 'true'], ['gc.auto', '0'], ['gc.pruneExpire', '1.hour.ago'], ['core.logAllRefUpdates', 'false']];
        for (const [k, v] of settings) {
          await this.ok(['config', k, v]);
        }
      }
      // An engine killed mid-snapshot leaves git's lock behind; only this engine ever uses the shadow.
      await rm(path.join(this.gitDir, 'index.lock'), { force: true });
      await this.writeExcludes();
      // A shadow made before nested repositories were skipped may hold gitlinks: drop them once.
      await this.dropNested();
    })().catch((err) => {
      this.ready = undefined;
      throw err;
    }));
  }

  private async writeExcludes(): Promise<void> {
    const nested = await readFile(path.join(this.gitDir, NESTED), 'utf8').catch(() => '');
    await mkdir(path.join(this.gitDir, 'info'), { recursive: true });
    await writeFile(path.join(this.gitDir, 'info', 'exclude'), [...DEFAULT_EXCLUDES, ...this.root.excludes].join('\n') + '\n' + nested);
  }

  /** Removes every gitlink from the shadow's index and excludes its folder from later snapshots. */
  private async dropNested(): Promise<void> {
    const fields = nulFields((await this.ok(['ls-files', '-s', '-z'])).stdout);
    const links = fields.filter((f) => f.startsWith('160000 ')).map((f) => f.slice(f.indexOf('\t') + 1));
    if (!links.length) return;
    await this.ok(['update-index', '--force-remove', '-z', '--stdin'], { input: links.join('\0') + '\0' });
    await appendFile(path.join(this.gitDir, NESTED), links.map((rel) => `/${literalPattern(rel)}/\n`).join(''));
    await this.writeExcludes();
  }

  /** The tree of the work tree as it is now (stages everything into the shadow's own index). */
  async currentTree(): Promise<string> {
    await this.ensure();
    const add = await this.run(['add', '-A', '--ignore-errors']);
    // --ignore-errors: an unreadable file or a nested repository without a commit is skipped, not fatal.
    if (add.code !== 0 && add.code !== 1) throw new EngineError(500, `checkpoint of "${this.root.name}" failed: ${firstLine(add.stderr)}`);
    // git names each nested repository it just added as a gitlink: drop them before any later add asks them.
    if (add.stderr.includes('adding embedded git repository')) await this.dropNested();
    return (await this.ok(['write-tree'])).stdout.toString('utf8').trim();
  }

  /** A checkpoint commit (parentless: pruning one never keeps another alive) and its ref. */
  async commit(tree: string, message: string): Promise<string> {
    const sha = (await this.ok(['commit-tree', tree], { input: message })).stdout.toString('utf8').trim();
    await this.ok(['update-ref', `refs/checkpoints/${sha}`, sha]);
    return sha;
  }

  async treeOf(sha: string): Promise<string> {
    await this.ensure();
    const r = await this.run(['rev-parse', '--verify', '-q', `${sha}^{tree}`]);
    if (r.code !== 0) throw new EngineError(404, `checkpoint ${sha} is no longer stored (it was pruned); GET /api/git/checkpoints lists the kept ones`);
    return r.stdout.toString('utf8').trim();
  }

  async deleteRefs(shas: string[]): Promise<void> {
    if (!shas.length) return;
    await this.ensure();
    await this.ok(['update-ref', '--stdin', '-z'], { input: shas.map((s) => `delete refs/checkpoints/${s}\0\0`).join('') });
  }

  /**
   * Packs and drops unreferenced objects older than an hour once enough loose objects piled up (git's
   * own `gc --auto` threshold), in the foreground: the caller runs it in the shadow's queue, because
   * a prune removes empty object folders a concurrent snapshot may be writing into.
   */
  async gc(signal?: AbortSignal): Promise<void> {
    const args = ['-c', 'gc.auto=6700', '-c', 'gc.autoDetach=false', 'gc', '--auto', '--quiet', '--prune=1.hour.ago'];
    await this.run(args, { signal, timeoutMs: 10 * 60_000, childGit: true }).catch(() => undefined);
  }

  /**
   * Makes the work tree match `tree` (from the state `fromTree`): only paths that differ are written
   * or removed; nested repositories (gitlinks) are left alone.
   */
  async restore(fromTree: string, tree: string): Promise<Array<{ rel: string; change: 'restored' | 'removed' | 'added' }>> {
    const raw = await this.ok(['diff-tree', '-r', '-z', '--no-renames', fromTree, tree]);
    const fields = nulFields(raw.stdout);
    const write: string[] = [];
    const remove: string[] = [];
    const changed: Array<{ rel: string; change: 'restored' | 'removed' | 'added' }> = [];
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const [oldMode, newMode, , , status] = fields[i].slice(1).split(' ');
      const rel = fields[i + 1];
      if (oldMode === '160000' || newMode === '160000') continue;
      if (status === 'D') {
        remove.push(rel);
        changed.push({ rel, change: 'removed' });
      } else {
        write.push(rel);
        changed.push({ rel, change: status === 'A' ? 'added' : 'restored' });
      }
    }
    for (const rel of remove) await this.removeFile(rel);
    if (write.length) {
      const co = await this.run(['checkout', tree, '--pathspec-from-file=-', '--pathspec-file-nul'], { input: write.map(lit).join('\0') + '\0' });
      if (co.code !== 0) throw new EngineError(500, `revert of "${this.root.name}" could not write the files back: ${firstLine(co.stderr)}`);
    }
    return changed;
  }

  /** Removes one file, refusing to act through a symlinked folder that leads out of the root; empty folders it leaves are removed. */
  private async removeFile(rel: string): Promise<void> {
    const abs = path.join(this.root.path, rel);
    const parent = await realpath(path.dirname(abs)).catch(() => undefined);
    if (!parent || !isInside(parent, this.root.path)) return;
    await rm(path.join(parent, path.basename(abs)), { force: true });
    for (let dir = path.dirname(abs); dir !== this.root.path && isInside(dir, this.root.path); dir = path.dirname(dir)) {
      try {
        await rmdir(dir);
      } catch {
        break; // not empty, or gone
      }
    }
  }
}
