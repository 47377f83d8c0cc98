/**
 * Backlinks after a change resolve only the links the change can touch (issue 34): a note added,
 * removed, renamed, given an alias, an attachment added, a link edited. After every step each
 * note's links and backlinks equal those of an index built from nothing over the same folder, and
 * adding a note to a vault resolves again the links to its name, not every link.
 */
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { VaultIndex } from '../../src/capabilities/vaults/index.js';
import { DEFAULT_SCHEMA } from '../../src/capabilities/vaults/schema.js';
import { Home } from '../../src/kernel/home.js';
import { Fence } from '../../src/kernel/fence.js';
import { FencedReader } from '../../src/kernel/fenced-read.js';
import { tempDir } from '../support/engine.js';

async function indexOf(root: string, home: Home, cache: string): Promise<VaultIndex> {
  const index = new VaultIndex(root, home, cache, DEFAULT_SCHEMA, new FencedReader(new Fence(root, () => [])));
  await index.load();
  return index;
}

/** What a reader sees of every note: each link's resolution and the sorted backlinks. */
function view(index: VaultIndex) {
  return Object.fromEntries(index.rels().map((rel) => {
    const m = index.meta(rel)!;
    return [rel, { links: m.links.map((l) => `${l.target} -> ${JSON.stringify(l.resolution)}`), backlinks: m.backlinks }];
  }));
}

test('incremental backlinks equal a full rebuild after every kind of change', async () => {
  const base = await tempDir();
  const root = path.join(base, 'vault');
  const home = new Home(path.join(base, 'home'));
  await home.ensure();
  const note = async (rel: string, text: string) => {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  };
  await note('a.md', 'Links to [[b]], [[c]], [[missing]] and [[dup]].\n');
  await note('b.md', 'Back to [[a]]; a picture ![[pic.png]]; [relative](sub/d.md) and [[sub/d]].\n');
  await note('c.md', '---\naliases: [see]\n---\nSee [[a]] and [[other]].\n');
  await note('sub/d.md', 'Up: [parent](../a.md) and [[dup]] and [odd](sub/..).\n');
  await note('x/dup.md', 'one dup\n');
  const live = await indexOf(root, home, path.join(base, 'live.json'));

  const steps: Array<[string, () => Promise<unknown>]> = [
    ['a note whose name a link was missing', () => note('missing.md', 'now here, links [[c]]\n')],
    ['a second note of an equally deep name (ambiguous)', () => note('y/dup.md', 'two dup\n')],
    ['an alias that a link used', () => note('other.md', '---\naliases: [see]\n---\nAlso [[b]].\n')],
    ['the attachment a link embeds', () => note('pic.png', 'png')],
    ['a note removed', () => rm(path.join(root, 'x/dup.md'))],
    ['a note renamed (removed and added)', async () => {
      await rm(path.join(root, 'c.md'));
      await note('c2.md', '---\naliases: [see, c]\n---\nSee [[a]] and [[other]].\n');
    }],
    ['a link edited', () => note('a.md', 'Links to [[c2]] and [[sub/d]] only.\n')],
    ['a note at the root named like a folder', () => note('sub.md', 'I am sub.\n')],
  ];
  const changed = ['missing.md', 'y/dup.md', 'other.md', 'pic.png', 'x/dup.md', 'c.md', 'a.md', 'sub.md'];
  for (const [i, [what, step]] of steps.entries()) {
    await step();
    await live.refresh(changed[i]);
    if (what.includes('renamed')) await live.refresh('c2.md');
    const fresh = await indexOf(root, home, path.join(base, `fresh-${i}.json`));
    assert.deepEqual(view(live), view(fresh), `after ${what}`);
  }
});

test('a note added to a large vault resolves again the links to its name, not every link', async () => {
  const base = await tempDir();
  const root = path.join(base, 'vault');
  await mkdir(root, { recursive: true });
  for (let i = 0; i < 300; i++) await writeFile(path.join(root, `n${i}.md`), `Links [[n${(i + 1) % 300}]] and [[hub]].\n`);
  const home = new Home(path.join(base, 'home'));
  await home.ensure();
  const index = await indexOf(root, home, path.join(base, 'index.json'));
  assert.equal(index.meta('n5.md')!.backlinks.length, 1);
  assert.equal(index.relinked, 300, 'the first read resolves every link');

  await writeFile(path.join(root, 'fresh.md'), 'A new note linking [[n5]].\n');
  await index.refresh('fresh.md');
  assert.deepEqual(index.meta('n5.md')!.backlinks, ['fresh.md', 'n4.md']);
  assert.equal(index.relinked, 1, 'only the new note: no link named "fresh"');

  await writeFile(path.join(root, 'hub.md'), 'The hub.\n');
  await index.refresh('hub.md');
  assert.equal(index.meta('hub.md')!.backlinks.length, 300);
  assert.equal(index.relinked, 301, 'every note links [[hub]]: all of them, and the hub itself');
});
