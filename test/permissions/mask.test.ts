/** Every secret shape is masked; ordinary text is left alone. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Masker, maskSecrets } from '../../src/permissions/mask.js';

// [input, the secret that must disappear, a fragment that must stay]
const cases: Array<[string, string, string]> = [
  ['curl -H "x-api-key: sk-ant-api03-AbCdEfGhIjKlMnOpQrSt_uv" https://api', 'AbCdEfGhIjKlMnOpQrSt', 'https://api'],
  ['export OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234567890', 'abcdefghijklmnop1234567890', 'export'],
  ['key sk-abcdefghijklmnopqrstuvwx end', 'abcdefghijklmnopqrstuvwx', 'end'],
  ['git clone https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/x/y', 'abcdefghijklmnopqrstuvwxyz0123456789', 'github.com/x/y'],
  ['token github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz', '11ABCDEFG0123456789_abcdefghij', 'token'],
  ['SLACK xoxb-123456789012-123456789012-AbCdEfGhIjKlMnOp', '123456789012-123456789012-AbCdEfGhIjKlMnOp', 'SLACK'],
  ['xoxp-1234567890-abcdefghij', '1234567890-abcdefghij', ''],
  ['aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE', 'IOSFODNN7EXAMPLE', 'aws configure'],
  ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U ok', 'dozjgNryP4J3jVmNHl0w5N', 'ok'],
  ['curl -H "Authorization: Bearer abc.def.ghi-123456" https://x', 'abc.def.ghi-123456', 'https://x'],
  ['Authorization: Basic dXNlcjpwYXNzd29yZA==', 'dXNlcjpwYXNzd29yZA==', 'Authorization'],
  ['use bearer Zm9vYmFyYmF6cXV4 please', 'Zm9vYmFyYmF6cXV4', 'please'],
  ['psql postgres://admin:s3cr3tP4ss@db.local:5432/app', 's3cr3tP4ss', 'db.local:5432/app'],
  ['redis-cli -u redis://:hunter2pass@localhost:6379', 'hunter2pass', 'localhost:6379'],
  ['mysql -uroot -pSuperSecret99 mydb', 'SuperSecret99', 'mydb'],
  ['mysqldump --password=TopSecret1 db', 'TopSecret1', 'db'],
  ['tool --password hunter2hunter --verbose', 'hunter2hunter', '--verbose'],
  ['deploy --api-key=abcd1234efgh --region eu', 'abcd1234efgh', '--region eu'],
  ['login --token "quoted secret value"', 'quoted secret value', 'login'],
  ['sshpass -p Passw0rd! ssh host', 'Passw0rd!', 'ssh host'],
  ['DB_PASSWORD=correcthorse npm start', 'correcthorse', 'npm start'],
  ['password=letmein123', 'letmein123', ''],
  ['GITHUB_TOKEN=abcdef123456 gh pr list', 'abcdef123456', 'gh pr list'],
  ['{"client_secret": "shhh-very-secret", "name": "x"}', 'shhh-very-secret', '"name": "x"'],
  ["secret: 'yaml-secret-value'", 'yaml-secret-value', 'secret'],
  ['api_key=zzzz9999yyyy', 'zzzz9999yyyy', ''],
  ['-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAxyz\n-----END RSA PRIVATE KEY-----', 'MIIEowIBAAKCAQEAxyz', 'BEGIN'],
  ['stripe sk_live_abcdefghijklmnop', 'abcdefghijklmnop', 'stripe'],
  ['curl -u admin:hunter2pass https://x', 'hunter2pass', 'admin:'],
  ['curl --user=admin:hunter2pass https://x', 'hunter2pass', 'https://x'],
  ['docker login -u me -p hunter2pass registry.example', 'hunter2pass', 'registry.example'],
  ['redis-cli -h cache -a hunter2pass ping', 'hunter2pass', 'ping'],
  // The masked password must not swallow the host and path after it.
  ['git clone https://x-access-token:ghs_abcdefghijklmnop1234@github.com/o/r', 'abcdefghijklmnop1234', '@github.com/o/r'],
];

test('every secret shape is masked', () => {
  for (const [input, secret, keep] of cases) {
    const out = maskSecrets(input);
    assert.ok(!out.includes(secret), `"${input}" -> "${out}" still shows ${secret}`);
    assert.ok(out.includes('***'), `"${input}" -> "${out}" has no mask`);
    if (keep) assert.ok(out.includes(keep), `"${input}" -> "${out}" lost "${keep}"`);
  }
});

test('masking JSON text keeps it valid JSON and still hides every secret', () => {
  for (const [input, secret] of cases) {
    const json = JSON.stringify({ command: input, nested: { note: input } });
    const out = maskSecrets(json);
    let parsed: { command: string };
    assert.doesNotThrow(() => (parsed = JSON.parse(out)), `masking broke the JSON of ${json}: ${out}`);
    assert.ok(!out.includes(secret), `${json} -> ${out} still shows ${secret}`);
    assert.ok(parsed!.command.includes('***'));
  }
});

test('known secret values are masked wherever they appear', () => {
  const out = maskSecrets('echo plainvalue42 and again plainvalue42', ['plainvalue42', 'ab']);
  assert.equal(out, 'echo *** and again ***');
  const masker = new Masker();
  masker.setKnown(['my-db-pass']);
  assert.equal(masker.mask('connect with my-db-pass now'), 'connect with *** now');
  // The compiled pattern is reused call after call: every occurrence, every time, longest value first.
  for (let i = 0; i < 3; i++) assert.equal(masker.mask('my-db-pass then my-db-pass'), '*** then ***');
  masker.setKnown(['my-db-pass', 'my-db-pass-two']);
  assert.equal(masker.mask('use my-db-pass-two'), 'use ***');
  masker.setKnown([]);
  assert.equal(masker.mask('the value my-db-pass.'), 'the value my-db-pass.');
  // Too-short values are not masked (they would garble ordinary text).
  assert.equal(maskSecrets('a b ab', ['ab']), 'a b ab');
});

test('ordinary commands and text stay as they are', () => {
  const plain = [
    'git status && npm test',
    'ls -la src/permissions',
    'grep -rn "token" src',
    'max_tokens: 4096',
    'echo the password is not here',
    'curl https://example.com/api/v1/items?page=2',
    'docker run --rm -p 8080:80 nginx',
    'git log --author "Ann"',
    'tokens=12',
    'gh auth login --with-token < token.txt',
    'sort -u names.txt',
    'mkdir -p build && ssh -p 2222 host',
  ];
  for (const text of plain) assert.equal(maskSecrets(text), text);
});
