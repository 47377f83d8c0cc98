/**
 * The checklist of git settings that name a program (issue 22 §1): the installed git's own list of
 * settings (`git help --config`) is read at test time, and every one that names a program must be
 * covered by src/capabilities/git/neutral.ts. A git that gains such a setting fails this test until
 * someone decides how the engine keeps it from running.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { git } from '../../src/capabilities/git/exec.js';
import { driverOverrides, NEUTRAL_CONFIG, PROGRAM_SETTINGS, subcommandFlags, withSubcommandFlags } from '../../src/capabilities/git/neutral.js';

/** The last part of a key when it names a program (or a command line for one). */
const PROGRAM_NAMES = new Set(['cmd', 'command', 'program', 'helper', 'textconv', 'editor', 'pager', 'driver', 'clean', 'smudge', 'process', 'sshcommand', 'askpass', 'gitproxy', 'external', 'fsmonitor', 'hookspath', 'packobjectshook', 'alternaterefscommand', 'browser', 'tocmd', 'cccmd', 'receivepack', 'uploadpack', 'vcs', 'proxy', 'defaultkeycommand', 'dbdriver', '<command>']);
/** Sections where `path` is a program's path or more configuration. */
const PATH_SECTIONS = new Set(['include', 'includeif', 'man', 'browser', 'difftool', 'mergetool']);

function namesAProgram(key: string): boolean {
  const parts = key.split('.');
  const section = parts[0].toLowerCase();
  const last = parts[parts.length - 1].toLowerCase();
  if (section === 'column') return false; // column.clean is a layout, not a program
  if (section === 'pager' || (section === 'color' && last === 'pager')) return true;
  if (last === 'path' && PATH_SECTIONS.has(section)) return true;
  return PROGRAM_NAMES.has(last);
}

test("every git setting that names a program (from this git's own list) is covered", () => {
  const keys = execFileSync('git', ['help', '--config'], { encoding: 'utf8' }).split('\n').map((l) => l.trim()).filter((l) => /^[A-Za-z][\w.<>-]*$/.test(l));
  assert.ok(keys.length > 300, `git help --config listed only ${keys.length} settings`);
  const programs = keys.filter(namesAProgram);
  assert.ok(programs.includes('core.fsmonitor') && programs.includes('filter.<driver>.clean'), programs.join(', '));
  const covered = new Map(Object.entries(PROGRAM_SETTINGS).map(([k, v]) => [k.toLowerCase(), v]));
  const missing = programs.filter((k) => !covered.has(k.toLowerCase()));
  assert.deepEqual(missing, [], `git names programs in settings neutral.ts does not cover: ${missing.join(', ')}`);
});

test('each cover is real: command-line values, driver overrides, diff flags', () => {
  const onLine = new Map(NEUTRAL_CONFIG.map(([k, v]) => [k.toLowerCase(), v]));
  for (const [key, cover] of Object.entries(PROGRAM_SETTINGS)) {
    if (cover === 'command line') assert.ok(onLine.has(key.toLowerCase()), `${key} is said to be set on the command line`);
    if (cover === 'driver') {
      const name = key.replace(/<driver>/, 'a=b.c');
      const env = driverOverrides([name]);
      assert.equal(env.GIT_CONFIG_KEY_0, name, key);
      assert.equal(env.GIT_CONFIG_VALUE_0, '', key);
    }
    if (cover === 'flag') assert.deepEqual(subcommandFlags('diff').slice(0, 2), ['--no-ext-diff', '--no-textconv']);
    if (cover === 'transport') assert.equal(onLine.get('protocol.allow'), 'never');
    if (cover === 'signing') assert.equal(onLine.get('commit.gpgsign'), 'false');
  }
  // A required filter without a program must not fail the command.
  assert.equal(driverOverrides(['filter.x.clean']).GIT_CONFIG_KEY_1, 'filter.x.required');
  assert.deepEqual(withSubcommandFlags(['-c', 'a=b', 'log', '-1']), ['-c', 'a=b', 'log', '--no-ext-diff', '--no-textconv', '-1']);
  assert.deepEqual(withSubcommandFlags(['status', '-z']), ['status', '--ignore-submodules=dirty', '-z']);
});

test("the user's own drivers (global configuration, as git-lfs sets them) still run; the repository's never do", async () => {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'git-neutral-')));
  try {
    const repo = path.join(dir, 'repo');
    const xdg = path.join(dir, 'xdg');
    await mkdir(path.join(xdg, 'git'), { recursive: true });
    await writeFile(path.join(xdg, 'git', 'config'), `[filter "mine"]\n\tclean = touch ${dir}/mine-ran; cat\n`);
    execFileSync('git', ['init', '-q', repo]);
    execFileSync('git', ['config', 'filter.evil.clean', `touch ${dir}/evil-ran; cat`], { cwd: repo });
    await writeFile(path.join(repo, '.gitattributes'), 'a.txt filter=mine\nb.txt filter=evil\n');
    await writeFile(path.join(repo, 'a.txt'), 'a\n');
    await writeFile(path.join(repo, 'b.txt'), 'b\n');
    const r = await git(['add', '-A'], { cwd: repo, ceilings: [dir], writable: [repo], env: { XDG_CONFIG_HOME: xdg, HOME: dir } });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(existsSync(path.join(dir, 'mine-ran')), "the user's own filter did not run");
    assert.ok(!existsSync(path.join(dir, 'evil-ran')), "the repository's filter ran");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
