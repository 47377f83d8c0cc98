/** Issue 10 items 7 and 11: the real CLI's arguments, spawned as a user runs it (serving: cli-serve.test.ts). */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { engineVersion } from '../../src/kernel/version.js';
import { cliHarness } from '../support/cli.js';

const { home, cli } = cliHarness();

test('--version prints the version alone', async () => {
  for (const args of [['--version'], ['version']]) {
    const r = await cli(args);
    assert.equal(r.code, 0);
    assert.deepEqual(r.out, [engineVersion()]);
  }
});

test('--help and <command> --help print usage and start nothing', async () => {
  const h = path.join(await home(), 'never-created');
  for (const args of [['--help'], ['help'], ['serve', '--help'], ['status', '--help'], ['stop', '--help'], ['serve', '--port', '1', '--help']]) {
    const r = await cli(args, { ENGINE_HOME: h });
    assert.equal(r.code, 0, args.join(' '));
    assert.match(r.out[0], /^usage: engine/);
    assert.deepEqual(r.err, []);
  }
  assert.equal(existsSync(h), false, 'no home was created: nothing started');
});

test('unknown commands and flags are refused with the usage and exit 2', async () => {
  for (const [args, said] of [
    [['bogus'], /^engine: unknown command "bogus"$/],
    [['serve', '--nope'], /^engine: unknown flag "--nope" for engine serve$/],
    [['status', '--port', '1'], /^engine: unknown flag "--port" for engine status$/],
    [['serve', '--port'], /^engine: --port needs a value$/],
    [['serve', 'extra'], /^engine: unexpected argument "extra"$/],
  ] as const) {
    const r = await cli([...args]);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.err[0], said);
    assert.ok(r.err.some((l) => l.startsWith('usage: engine')), 'the usage follows');
  }
});

test('a bad variable or flag value is one line and exit 78', async () => {
  const h = await home();
  const cases: Array<[string[], Record<string, string>, RegExp]> = [
    [['serve'], { ENGINE_BIND: 'not-an-ip', ENGINE_HOME: h }, /^engine: ENGINE_BIND=not-an-ip is not an IP address; use 127\.0\.0\.1/],
    [['serve'], { ENGINE_PORT: 'abc', ENGINE_HOME: h }, /^engine: ENGINE_PORT=abc is not a port number/],
    [['serve'], { ENGINE_HOME: 'relative/home' }, /^engine: ENGINE_HOME=relative\/home is not an absolute path/],
    [['serve', '--home', 'relative'], {}, /^engine: --home relative is not an absolute path/],
    [['serve', '--port', '70000', '--home', h], {}, /^engine: --port 70000 is not a port number/],
    [['serve', '--bind', '10.255.255.254', '--port', '0', '--home', h], {}, /^engine: cannot listen on 10\.255\.255\.254: it is not an address of this machine/],
    [['serve', '--home', h], { ENGINE_SECRETS: 'vault' }, /^engine: ENGINE_SECRETS=vault is not a secrets backend/],
  ];
  for (const [args, env, said] of cases) {
    const r = await cli(args, env);
    assert.equal(r.code, 78, `${args.join(' ')} ${JSON.stringify(env)}: ${r.err.join(' | ')}`);
    assert.equal(r.err.length, 1, r.err.join('\n'));
    assert.match(r.err[0], said);
  }
});
