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

test('issue 38 §3: the names the attack passed through, and values shaped like credentials, are dropped; the harmless allowlist is kept', async () => {
  const secret = {
    AWS_SESSION: 'IQoJb3JpZ2luX2VjEHYaCXVzLWVhc3QtMSJHMEUCIQ',
    AWS_SESSION_EXPIRES: '2031-01-01T00:00:00Z',
    SLACK_WEBHOOK: 'https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx',
    PRIVATE_SIGNING: 'ed25519-signing-material',
    CERT_PEM: 'see-file',
    OTP_SEED: 'JBSWY3DPEHPK3PXP',
    KUBECONFIG_DATA: 'YXBpVmVyc2lvbjogdjE=',
    PIN: '4921',
    SIM_PIN: '1234',
    TOTP_SECRET_B32: 'x',
    WALLET_MNEMONIC: 'abandon ability able',
    // Values whose names say nothing: a webhook URL, a URL with a secret-named parameter or a random
    // token in its path, any PEM block, a base64 blob, a JWT, a URL's password.
    NOTIFY_URL: 'https://discord.com/api/webhooks/1234567890/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
    TEAMS: 'https://example.webhook.office.com/webhookb2/abc@def/IncomingWebhook/0123456789abcdef/xyz',
    S3_LINK: 'https://bucket.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4&X-Amz-Signature=0a1b2c3d4e5f',
    FEED: 'https://example.com/feed?user=ada&access_token=abc123',
    MAPS: 'https://maps.example.com/api?key=AbC123xYz',
    CALLBACK: 'https://api.example.com/v1/callbacks/Zx9Qw3Er5Ty7Ui9Op1As3Df5/run',
    BUNDLE: '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----',
    CONFIG_B64: Buffer.from('apiVersion: v1\nclusters:\n- cluster:\n    server: https://k8s.example:6443\n').toString('base64'),
    RAW_KEY: 'q8Zr2LmX7vN4pK1sT9wY3bC6dF0gH5jQ',
    ID_TOKEN_FREE: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJl',
    DB: 'mysql://root:toor@127.0.0.1/app',
  };
  const keep = {
    XDG_SESSION_ID: '3',
    XDG_SESSION_TYPE: 'wayland',
    DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus,guid=3f2a9c0d1e2f3a4b5c6d7e8f9a0b1c2d',
    DESKTOP_SESSION: 'gnome',
    INVOCATION_ID: '8f14e45fceea467fA7e84d1a2b3c4d5eFF00aa11',
    HOSTNAME: 'myapp-deployment-5d8f7c9b6-x2x7z',
    SSL_CERT_FILE: '/etc/ssl/certs/ca-certificates.crt',
    NODE_EXTRA_CA_CERTS: '/usr/local/share/ca.pem',
    HTTPLIB2_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt',
    KUBECONFIG: '/home/ada/.kube/config:/home/ada/.kube/other',
    NODE_OPTIONS: '--max-old-space-size=4096',
    DOCS: 'https://example.com/docs/getting-started-with-the-engine',
    REPO_URL: 'https://github.com/o/r/commit/3f2a9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b',
    RELEASE_DIR: '/opt/app2/releases/20240101',
    COMPOSE_PROJECT_NAME: 'my_project_2024_release_x',
    SPINNER: 'dots',
    TOX_TESTENV_PASSENV: 'HOME',
  };
  await assertScrubbed(secret, keep);
});
