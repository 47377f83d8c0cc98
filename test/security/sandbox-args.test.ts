/**
 * The policy as arguments: bwrap's mount order (later mounts win) and the Seatbelt profile (which
 * cannot run here; its text is checked for the properties the docs promise).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bwrapArgs } from '../../src/sandbox/linux.js';
import { seatbeltArgs, seatbeltProfile } from '../../src/sandbox/macos.js';
import type { SandboxPlan } from '../../src/sandbox/types.js';

const plan: SandboxPlan = {
  mode: 'workspace-write',
  network: false,
  roots: ['/home/u/.engine/workspace', '/home/u'],
  engineHome: '/home/u/.engine',
  userHome: '/home/u',
  readOnly: ['/home/u/.engine/workspace/r/.git/config', '/home/u/.bashrc'],
  cwd: '/home/u/.engine/workspace',
};
const all = () => true;

test('bwrap: read-only root first; a mount holding the engine home is bound before the home is hidden; the workspace after', () => {
  const a = bwrapArgs(plan, all);
  const at = (...seq: string[]) => a.findIndex((_, i) => seq.every((s, j) => a[i + j] === s));
  assert.deepEqual(a.slice(0, 3), ['--ro-bind', '/', '/']);
  const mountHome = at('--bind', '/home/u', '/home/u');
  const hide = at('--tmpfs', '/home/u/.engine');
  const ws = at('--bind', '/home/u/.engine/workspace', '/home/u/.engine/workspace');
  const ro = at('--remount-ro', '/home/u/.engine');
  const gitRo = at('--ro-bind', '/home/u/.engine/workspace/r/.git/config', '/home/u/.engine/workspace/r/.git/config');
  assert.ok(at('--ro-bind', '/home/u', '/home/u') < mountHome && mountHome < hide && hide < ws && ws < ro && ro < gitRo, a.join(' '));
  assert.ok(a.includes('--unshare-net') && a.includes('--unshare-pid'));
  assert.deepEqual(a.slice(a.indexOf('--cap-drop'), a.indexOf('--cap-drop') + 2), ['--cap-drop', 'ALL']);
  assert.equal(a.at(-1), '--');
});

test('bwrap: read-only mode binds the roots read-only; network on is still a network namespace of its own, with only the egress socket bound in', () => {
  const a = bwrapArgs({ ...plan, mode: 'read-only', network: true, egressSocket: '/tmp/engine-egress-x/proxy.sock' }, all);
  assert.ok(!a.includes('--bind'));
  assert.ok(a.includes('--unshare-net'));
  const text = a.join(' ');
  assert.ok(text.includes('--tmpfs /run') && text.includes('--ro-bind /dev/null /var/run/docker.sock'), text);
  assert.ok(text.indexOf('--tmpfs /run') < text.indexOf('--ro-bind /tmp/engine-egress-x/proxy.sock /run/engine-egress.sock'), text);
  assert.ok(!bwrapArgs({ ...plan, egressSocket: '/tmp/engine-egress-x/proxy.sock' }, all).join(' ').includes('proxy.sock'), 'no proxy with the network off');
});

test('seatbelt: deny by default, paths only as parameters, no network when off, read-only islands excluded from writes', () => {
  const odd = { ...plan, roots: ['/Users/u/we"ird) (allow default'] };
  const launch = seatbeltProfile(odd, '/private/var/folders/x/T/engine-sandbox-1');
  assert.match(launch.profile, /^\(version 1\)\n\(deny default\)/);
  assert.ok(!launch.profile.includes('we"ird'), 'a path never enters the profile text');
  assert.ok(!/\(allow default\)/.test(launch.profile));
  assert.ok(!/network\*/.test(launch.profile));
  assert.match(launch.profile, /\(require-not \(require-any \(subpath \(param "RO_0"\)\)/);
  assert.equal(launch.params.ROOT_0, '/Users/u/we"ird) (allow default');
  const args = seatbeltArgs(launch);
  assert.deepEqual(args.slice(0, 2), ['-p', launch.profile]);
  assert.ok(args.includes('ROOT_0=/Users/u/we"ird) (allow default'));
  assert.match(seatbeltProfile({ ...plan, network: true }, '/t').profile, /\(allow network\*\)/);
});

test('bwrap: git dirs are pinned after the roots and before the read-only islands inside them; missing ones get placeholders', () => {
  const git = '/home/u/.engine/workspace/r/.git';
  const a = bwrapArgs({ ...plan, pinned: [git], emptyFiles: [`${git}/config.worktree`], emptyDirs: [`${git}/hooks`] }, all);
  const at = (...seq: string[]) => a.findIndex((_, i) => seq.every((s, j) => a[i + j] === s));
  const ws = at('--bind', '/home/u/.engine/workspace', '/home/u/.engine/workspace');
  const pin = at('--bind', git, git);
  const config = at('--ro-bind', `${git}/config`, `${git}/config`);
  assert.ok(ws < pin && pin < config, a.join(' '));
  assert.ok(config < at('--ro-bind', '/dev/null', `${git}/config.worktree`));
  assert.ok(config < at('--tmpfs', `${git}/hooks`, '--remount-ro', `${git}/hooks`));
  // Read-only mode pins read-only.
  const ro = bwrapArgs({ ...plan, mode: 'read-only', pinned: [git] }, all);
  assert.ok(ro.join(' ').includes(`--ro-bind ${git} ${git}`));
});

test('bwrap: a network-on command that joins the shared egress namespace makes every namespace but the network\'s, and binds no proxy socket', () => {
  const joined = bwrapArgs({ ...plan, network: true, joinNetwork: true, egressSocket: '/tmp/engine-egress-x/proxy.sock' }, all);
  assert.ok(!joined.includes('--unshare-net'), joined.join(' '));
  assert.ok(!joined.join(' ').includes('proxy.sock'), joined.join(' '));
  for (const flag of ['--unshare-pid', '--unshare-ipc', '--unshare-uts', '--die-with-parent']) assert.ok(joined.includes(flag), flag);
  assert.deepEqual(joined.slice(joined.indexOf('--cap-drop'), joined.indexOf('--cap-drop') + 2), ['--cap-drop', 'ALL']);
  assert.ok(bwrapArgs({ ...plan, joinNetwork: true }, all).includes('--unshare-net'), 'with the network off a command never joins anything');
});
