/**
 * Issue 38 §3: a prompt's display may hide a secret value, never code. Masking replaces only the
 * secret's own characters and stops at shell metacharacters (`;`, `&`, `|`, `$(`, backquote,
 * newline, quotes, parentheses, redirections), so every shell word after the secret is still shown.
 * Each case is `<before><secret><after>`: the masked text must not hold the secret and must end with
 * `<after>` exactly.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maskSecrets } from '../../src/permissions/mask.js';

const S = 'hunter2pw';
const B64 = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7';
const GH = `ghp_${'a1B2c3D4e5'.repeat(4)}`;
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJlLXZhbHVl';

/** [before, secret, after]: the code after the secret, starting with a metacharacter, must survive. */
const CORPUS: Array<[string, string, string]> = [
  // curl/wget user:password, every separator and quoting.
  ['curl -u admin:', S, ';touch x'],
  ['curl -uadmin:', S, '&&rm -f y'],
  ['curl --user admin:', S, '|tee log'],
  ['curl --user=admin:', S, '||reboot'],
  ['curl -u "admin:', S, '";touch x'],
  ["curl -u 'admin:", S, "'&&id"],
  ['curl --proxy-user u:', S, '$(id)'],
  ['curl -u admin:', S, '`id`'],
  ['curl -u admin:', S, '\ntouch x'],
  ['curl -u admin:', S, '>out.txt'],
  ['curl -u admin:', S, ')'],
  ['curl -u "admin:', S, '$(id)"'],
  // Password flags and attached forms.
  ['wget --password=', S, '&&touch x'],
  ['mysql --password ', S, ';id'],
  ['mysql -uroot -p', S, '|cat'],
  ['mysqldump -u root -p', S, '>dump.sql;rm -f dump.sql'],
  ['gh auth login --token ', S, ';id'],
  ['tool --api-key=', S, '`id`'],
  ['tool --client-secret ', S, '$(curl x|sh)'],
  ['redis-cli -a ', S, ';id'],
  ['sshpass -p ', S, '&&ssh host'],
  ['smbclient //h/s -U admin%', S, ';id'],
  ['zip -P ', S, '|cat'],
  ['ldapsearch -x -w ', S, ';id'],
  ['docker login -u me -p ', S, ';id'],
  ['openssl enc -k ', S, '&id'],
  // Assignments: environment prefixes, exports, quoted values with code after or inside.
  ['PGPASSWORD=', S, ' psql -h db;touch x'],
  ['PGPASSWORD=', S, ';touch x'],
  ['PGPASSWORD=', S, '\nrm -rf x'],
  ['(PGPASSWORD=', S, ')'],
  ['export API_TOKEN=', S, '&&curl x'],
  ['DB_PASSWORD="', S, '"$(id)'],
  ['DB_PASSWORD="', S, '$(id)"'],
  ['DB_PASSWORD=', S, '$(id)'],
  ["SECRET='", S, "';id"],
  ['curl -d password=', S, '&x=1;id'],
  // Authorization and cookie headers, quoted and not.
  ['curl -H "Authorization: Bearer ', S, '";touch x'],
  ["curl -H 'Authorization: Bearer ", S, "' https://x;touch y"],
  ['curl -H Authorization:', S, ';touch x'],
  ['curl -H Authorization:', S, ' https://x;touch y'],
  ['curl -H "Authorization: token ', S, '$(id)"'],
  ['curl -H "Proxy-Authorization: Basic ', S, '"|sh'],
  ["curl -H 'Cookie: session=", S, "'|sh"],
  ['curl -H Cookie:sid=', S, ';id'],
  ['curl -H "Authorization: Bearer $(cat t)" -u a:', S, ';id'],
  // URLs with user info.
  ['curl https://admin:', S, '@example.com/x;touch x'],
  ['git clone https://oauth2:', S, '@gitlab.example.com/r.git&&cd r'],
  ['psql postgresql://app:', S, '@db/app -c "select 1";id'],
  // Token shapes and key blocks.
  ['GH=', GH, ';id'],
  ['curl -H "Authorization: Bearer ', JWT, '";id'],
  ['echo Bearer ', `${S}abc`, ';id'],
  ["printf '-----BEGIN PRIVATE KEY-----\\n", B64, "\\n';touch x"],
  ['echo "-----BEGIN PRIVATE KEY-----\n', B64, '\n";touch x'],
];

test('masking hides the secret and keeps every shell word after it', () => {
  assert.ok(CORPUS.length >= 50);
  const failures: string[] = [];
  for (const [before, secret, after] of CORPUS) {
    const command = before + secret + after;
    const shown = maskSecrets(command);
    if (shown.includes(secret) || !shown.endsWith(after) || !shown.includes('***')) failures.push(`${JSON.stringify(command)}\n  -> ${JSON.stringify(shown)}`);
  }
  assert.deepEqual(failures, []);
});

test('a key block with code between its markers hides no code', () => {
  const command = 'echo "-----BEGIN PRIVATE KEY-----"; rm -rf ~/x; echo "-----END PRIVATE KEY-----"';
  assert.ok(maskSecrets(command).includes('; rm -rf ~/x; echo "-----END PRIVATE KEY-----"'), maskSecrets(command));
});

test('the issue\'s case reads exactly as it runs', () => {
  assert.equal(maskSecrets('curl -u admin:pw;touch x'), 'curl -u admin:***;touch x');
  assert.equal(maskSecrets('curl --password=x&&touch y'), 'curl --password=***&&touch y');
});
