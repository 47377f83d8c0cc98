/**
 * Issue 9 §4, the environment scrub by shapes: names and values that look secret never reach a
 * shell. Checked from inside a real shell (`env`), the way a model would look.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { isSecretName } from '../../src/capabilities/shell/env.js';
import { createShellService, type ShellService } from '../../src/capabilities/shell/service.js';
import { Fence } from '../../src/kernel/fence.js';
import { Masker } from '../../src/permissions/mask.js';

let dir: string;
let shell: ShellService;
const masker = new Masker();
const STORED = 'stored-value-7c1f2e9a44';

before(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'env-scrub-')));
  const workspace = path.join(dir, 'home', 'workspace');
  await mkdir(workspace, { recursive: true });
  masker.setKnown([STORED]);
  shell = createShellService({ fence: new Fence(workspace, () => []), home: path.join(dir, 'home'), mask: masker.mask });
});
after(() => rm(dir, { recursive: true, force: true }));

async function envInShell(planted: Record<string, string>): Promise<string> {
  Object.assign(process.env, planted);
  try {
    return (await shell.exec({ command: 'env' })).text;
  } finally {
    for (const name of Object.keys(planted)) delete process.env[name];
  }
}

/** Plants `secret` and `keep` in the environment, runs `env`: every secret name gone, every kept line intact. */
async function assertScrubbed(secret: Record<string, string>, keep: Record<string, string>): Promise<string> {
  const text = await envInShell({ ...secret, ...keep });
  for (const name of Object.keys(secret)) assert.doesNotMatch(text, new RegExp(`^${name}=`, 'm'), name);
  for (const [name, value] of Object.entries(keep)) assert.match(text, new RegExp(`^${name}=${value.replace(/[.?]/g, '\\$&')}$`, 'm'), name);
  return text;
}

test('secret-shaped names are dropped (the names the attack found and their families)', async () => {
  const secret = {
    DB_PASS: 'p1',
    MYSQL_PASS: 'p2',
    PASS: 'p3',
    GH_PAT: 'p4',
    GITLAB_PAT: 'p5',
    PAT_TOKEN_X: 'p6',
    OPENAIAPIKEY: 'p7',
    MY_APIKEY_VALUE: 'p8',
    stripe_apikey: 'p9',
    DB_PASSWD: 'p10',
    LDAP_PASSWD_FILE: 'p11',
    PRIVATE_KEY: 'p12',
    SSH_PRIVATE_KEY: 'p13',
    SESSION_KEY: 'p14',
    SECRET_KEY_BASE: 'p15',
    AUTH: 'p16',
    NPM_AUTH: 'p17',
    AUTH_HEADER: 'p18',
    MYSQL_PWD: 'p19',
    ENCRYPTION_KEY: 'p20',
    AWS_ACCESS_KEY_ID: 'p21',
    GPG_PASSPHRASE: 'p22',
    SESSION_COOKIE: 'p23',
    SENTRY_DSN: 'p24',
    webhookSignature: 'p25',
    signingKey: 'p26',
    GOOGLE_APPLICATION_CREDENTIALS: '/x/key.json',
  };
  const keep = { PLAIN_VALUE: 'visible', GIT_AUTHOR_NAME: 'Ada', PATHEXT_LIKE: 'ok', PATTERN_DIR: 'ok2', KEYBOARD_LAYOUT: 'us', SSH_AUTH_SOCK: '/tmp/agent.sock', COMPASS: 'north' };
  const text = await assertScrubbed(secret, keep);
  // The shell still has its working environment.
  assert.match(text, /^PATH=/m);
  assert.match(text, /^PWD=/m);
});

test('secret-shaped values are dropped whatever the name', async () => {
  const secret = {
    DATABASE_URL: 'postgres://app:hunter2@db.example:5432/app',
    REDIS: 'redis://:s3cret@127.0.0.1:6379/0',
    UPSTREAM: 'https://x-access-token:abcdef123456@github.com/o/r.git',
    OPENAI: 'sk-proj-abcdefghijklmnop1234567890',
    GHCLI: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
    AWS_ID: 'AKIAABCDEFGHIJKLMNOP',
    SLACK: 'xoxb-1234567890-abcdefghij',
    HEADER: 'Bearer abcdefghijklmnop',
    JWT_LIKE_NAME_FREE: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghij',
    PEM: '-----BEGIN RSA PRIVATE KEY-----\nMIIabc\n-----END RSA PRIVATE KEY-----',
    INNOCENT: STORED,
    INNOCENT_TOO: `prefix-${STORED}-suffix`,
  };
  const keep = { HOMEPAGE: 'https://example.com/docs', GIT_REMOTE: 'ssh://git@github.com/o/r.git', PG_HOST_URL: 'postgres://app@db.example/app' };
  const text = await assertScrubbed(secret, keep);
  for (const v of ['hunter2', 's3cret', 'abcdef123456', STORED]) assert.ok(!text.includes(v), v);
});

test('secret words count as parts of names (issue 22 §4), with the known harmless names kept', async () => {
  const secret = ['DBPASS', 'DB_PW', 'MYSQLPWD', 'PGPASS', 'REDISPASS', 'SMTP_PASSWD', 'ADMINPW', 'dbpw', 'APPSECRET', 'CLIENTSECRETS', 'GHTOKEN', 'ACCESSTOKENS', 'NPMTOKEN', 'APIKEY', 'MASTERKEY', 'SIGNKEY_FILE', 'AWSKEYID', 'DBCRED', 'CREDS', 'GCP_CREDS_JSON', 'OAUTH', 'OAUTH2_CLIENT', 'BASICAUTH', 'HTTPAUTH_USER', 'AUTHZ', 'mysqlPwd', 'rootPass', 'sessionToken', 'LicenseKey', 'x-auth-header', 'SECRETS', 'PASSCODE'];
  const keep = ['PATH', 'PWD', 'OLDPWD', 'HOME', 'LANG', 'GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'KEYBOARD_LAYOUT', 'COMPASS', 'SSH_AUTH_SOCK', 'XAUTHORITY', 'TOKENIZERS_PARALLELISM', 'npm_package_author_name', 'npm_package_keywords_0', 'PATHEXT', 'PATTERN', 'MANPATH', 'PYTHONPATH', 'LD_LIBRARY_PATH', 'GOPATH', 'SHELL', 'TERM', 'USER', 'LOGNAME', 'EDITOR', 'DISPLAY', 'TZ', 'NODE_ENV', 'CI', 'HOSTNAME', 'BYPASS_CACHE', 'FTP_PASSIVE'];
  assert.ok(secret.length >= 30 && keep.length >= 30);
  for (const name of secret) assert.equal(isSecretName(name), true, `${name} should be secret`);
  for (const name of keep) assert.equal(isSecretName(name), false, `${name} should be kept`);
  // And from inside a real shell, as a model would look.
  const planted = Object.fromEntries(secret.map((n, i) => [n, `v${i}`]));
  await assertScrubbed(planted, { FTP_PASSIVE: 'yes', BYPASS_CACHE: '1', KEYBOARD_LAYOUT: 'de' });
});
