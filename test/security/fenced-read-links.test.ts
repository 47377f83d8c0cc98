/**
 * Issue 38 §1: the engine's own reads never follow a link out of the fence. Links to the file key,
 * the sealed secret store, settings.json and /etc/hostname, planted by a sandboxed command (the model's
 * `run_shell`, allowed by a rule) or shipped in a cloned repository (no shell at all), as plain links,
 * a chain (a -> b -> outside), a folder link out of the root, and every spelling of a way into the
 * home: none of them reaches search_code (nor the embeddings endpoint), the atlas brief, the editor
 * helpers (apply, complete, inline edit: refused before any model is asked) or the brain, through
 * real chat turns with the scripted model and the real watcher. Each refusal is logged once. (Checked to fail with the fenced reader bypassed: docs/security.md, "The fenced reader".)
 */
// needs: better-sqlite3 (the semantic index lives in SQLite with sqlite-vec)
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { lstat, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { tempDir } from '../support/engine.js';
import { startFencedHarness, type FencedHarness } from './fenced-harness.js';

let h: FencedHarness;
let outside: string;

/** Links the model's sandboxed command plants in `planted/` (relative targets resolve from there). */
const PLANTED: Record<string, string> = {
  'planted/key.ts': '../../secrets.key',
  'planted/enc.ts': '<home>/secrets.enc.json',
  'planted/settings.ts': '../../settings.json',
  'planted/hostname.ts': '/etc/hostname',
  'planted/b.ts': '../../secrets.key',
  'planted/a.ts': 'b.ts', // a -> b -> <home>/secrets.key
  'planted/out': '../..', // a folder link out of the root: the home itself
};
/** Links a repository ships, committed with it and cloned into the workspace as `repo/`. */
const SHIPPED: Record<string, string> = {
  'docs/notes.md': '../../../secrets.key',
  'src/enc.ts': '../../../secrets.enc.json',
  'src/settings.ts': '../../../settings.json',
  'src/host.ts': '/etc/hostname',
  'src/b.ts': '../../../secrets.key',
  'src/a.ts': 'b.ts',
  'home': '../..',
};
/** Every spelling of a way into the home from `spell/`; `<alias>` is a link outside to the home. */
const SPELLINGS: Record<string, string> = {
  'spell/rel.md': '../../secrets.key',
  'spell/dots.md': './../..//./secrets.key',
  'spell/abs.md': '<home>/workspace/../secrets.key',
  'spell/proc.md': '/proc/self/root<home>/secrets.key',
  'spell/alias.md': '<alias>/secrets.key',
  'spell/up': '..', // inside: the workspace root
  'spell/through.md': 'up/../secrets.key', // through an inside folder link, then out
  'spell/detour.md': '../spell/../../secrets.key',
};

const fill = (target: string) => target.replace('<home>', h.home).replace('<alias>', path.join(outside, 'home-alias'));
/** The links that name a file (the folder links are read through, below). */
const fileLinks = (links: Record<string, string>, prefix = '') => Object.keys(links).map((l) => prefix + l).filter((l) => /\.\w+$/.test(l));

before(async () => {
  h = await startFencedHarness();
  outside = await tempDir('fenced-outside-');
  await symlink(h.home, path.join(outside, 'home-alias'));
  // A real, ordinary project beside the attacks, so the index and the brief have something to do.
  await mkdir(path.join(h.ws, 'app'), { recursive: true });
  await writeFile(path.join(h.ws, 'app', 'upload.ts'), 'export function retryFailedUploads(queue: string[]): number {\n  return queue.length;\n}\n');
  await mkdir(path.join(h.ws, 'planted'), { recursive: true });
  await mkdir(path.join(h.ws, 'spell'), { recursive: true });
});
after(async () => {
  await h.close();
  await rm(outside, { recursive: true, force: true });
});

/** The brain's file nodes that a run read. */
async function readInBrain(): Promise<string[]> {
  const brain = await h.t.api('GET', '/api/brain?limit=5000');
  assert.equal(brain.status, 200, JSON.stringify(brain.body));
  return brain.body.edges.filter((e: any) => e.type === 'read').map((e: any) => String(e.to).replace(/^file:/, ''));
}

/** Why the editor helpers refuse a link out: it leads outside, or into the home. */
const OUT = /outside the workspace and mounts|inside the engine home/;

test('links planted by a sandboxed command and shipped in a cloned repository reach nothing a model or the embeddings endpoint sees', async () => {
  // The model plants the links with an allowed command, in the sandbox.
  await h.plant('plant', Object.entries(PLANTED).map(([link, target]) => `ln -s '${fill(target)}' '${link}'`).join('\n'));
  for (const link of Object.keys(PLANTED)) assert.ok((await lstat(path.join(h.ws, link))).isSymbolicLink(), `${link} was planted`);

  // A repository that ships links, cloned by the person: no shell is involved.
  const src = path.join(outside, 'shipped');
  await mkdir(path.join(src, 'docs'), { recursive: true });
  await mkdir(path.join(src, 'src'), { recursive: true });
  await writeFile(path.join(src, 'README.md'), '# A helpful project\n');
  for (const [link, target] of Object.entries(SHIPPED)) await symlink(target, path.join(src, link));
  const git = (args: string[], cwd: string) => execFileSync('git', args, { cwd, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@x', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@x' } });
  git(['init', '-q', '-b', 'main'], src);
  git(['add', '-A'], src);
  git(['commit', '-q', '-m', 'links'], src);
  git(['clone', '-q', src, path.join(h.ws, 'repo')], h.ws);
  for (const link of Object.keys(SHIPPED)) assert.ok((await lstat(path.join(h.ws, 'repo', link))).isSymbolicLink(), `repo/${link} was cloned as a link`);

  // Every spelling of a way into the home, made by hand.
  for (const [link, target] of Object.entries(SPELLINGS)) await symlink(fill(target), path.join(h.ws, link));

  // The index is built over all of it (the full walk), then the model searches and reads.
  await h.index();
  const attacks = [...fileLinks(PLANTED), ...fileLinks(SHIPPED, 'repo/'), ...fileLinks(SPELLINGS)];
  const embedded = h.embeddedPaths();
  assert.ok(embedded.has('app/upload.ts'), 'the ordinary file is indexed');
  for (const link of attacks) assert.equal(embedded.has(link), false, `${link} was sent to the embeddings endpoint`);

  const atlas = (scope: string) => h.t.api('POST', '/api/atlas/standard', { scope });
  const briefs = await Promise.all(['planted', 'repo', 'spell'].map(atlas));
  for (const b of briefs) assert.equal(b.status, 200, JSON.stringify(b.body));
  const briefed = JSON.stringify(briefs.map((b) => b.body.document));
  for (const link of attacks) assert.equal(briefed.includes(`"${link}"`), false, `${link} is in an atlas brief`);
  for (const [what, text] of Object.entries(h.secrets)) assert.equal(briefed.includes(text), false, `${what} is in an atlas brief`);

  await h.turn(
    'attack',
    [
      {
        toolCalls: [
          { name: 'search_code', args: { query: 'secret key base64' } },
          { name: 'search_code', args: { query: 'settings chatMaxTurns' } },
          { name: 'search_code', args: { query: 'hostname of this machine' } },
          ...attacks.map((p) => ({ name: 'read_file', args: { path: p } })),
          { name: 'read_file', args: { path: 'planted/out/secrets.key' } },
          { name: 'read_file', args: { path: 'repo/home/secrets.key' } },
        ],
      },
      { toolCalls: [{ name: 'read_card', args: { unit: '.', atlas: 'std-planted' } }] },
      { text: 'nothing found' },
    ],
    { atlas: 'std-planted' },
  );
  const shown = h.searchResults().join('\n');
  assert.match(shown, /app\/upload\.ts/, 'search_code answers with the ordinary file');
  for (const link of attacks) assert.doesNotMatch(shown, new RegExp(`^${link.replace(/\./g, '\\.')}:`, 'm'), `${link} is a search_code result`);
  await h.editorRefused([...attacks, 'planted/out/secrets.key', 'repo/home/secrets.key'], OUT);
  const read = await readInBrain();
  for (const link of attacks) assert.equal(read.includes(link), false, `the brain says a run read ${link}`);
  h.assertNothingLeaked();

  // Each refused path is logged once, however many times it was refused (walk, stat, read, apply).
  const lines = h.t.logs.filter((l) => l.startsWith('fenced read: refused "planted/key.ts"'));
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.match(lines[0], new RegExp(`leads to ${h.home.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/secrets\\.key`));
});

test('a link made after the index was built (the watcher path) is not indexed', async () => {
  const seq = h.lastSeq();
  await h.plant('late', `ln -s ../secrets.key late-key.md\nln -s '${h.home}/secrets.enc.json' late-enc.md\nln -s /etc/hostname late-host.md\nln -s late-key.md late-chain.md\necho 'export const lateWitness = 1;' > late-ok.ts`);
  const job = await h.indexed(seq, 'late-ok.ts');
  assert.equal(job.kind, 'index.completed', String(job.error));
  for (const link of ['late-key.md', 'late-enc.md', 'late-host.md', 'late-chain.md']) assert.equal(h.embeddedPaths().has(link), false, `${link} was embedded`);
  await h.turn('late-search', [{ toolCalls: [{ name: 'search_code', args: { query: 'late key' } }, { name: 'read_file', args: { path: 'late-key.md' } }] }, { text: 'nothing' }]);
  await h.editorRefused(['late-key.md', 'late-enc.md', 'late-host.md', 'late-chain.md'], OUT);
  assert.equal((await readInBrain()).includes('late-key.md'), false);
  h.assertNothingLeaked();
  // A link inside the fence is content: it reads what it leads to.
  await symlink('app/upload.ts', path.join(h.ws, 'alias.ts'));
  const inside = await h.t.api('POST', '/api/apply', { path: 'alias.ts', snippet: 'export function retryFailedUploads(queue: string[]): number {\n  return queue.length;\n}\nexport const more = 1;\n' });
  assert.equal(inside.body.tier, 'splice', JSON.stringify(inside.body));
  assert.match(inside.body.merged, /return queue\.length;\n\}\nexport const more = 1;/);
});
