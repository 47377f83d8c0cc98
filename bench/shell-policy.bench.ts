/**
 * The shell policy (tree-sitter parse, segment keys, forced prompts, denylist) per command, against
 * the cheapest way to have real bash read the same command: `bash -n -c <command>` (syntax check
 * only, nothing runs). The policy runs before every run_shell call, so it should cost less than the
 * shell start it guards.
 */
import { spawnSync } from 'node:child_process';
import { ensureShellParser } from '../src/permissions/shell-parse.js';
import { shellPermission } from '../src/permissions/shell-policy.js';
import { median, table } from './lib/report.js';

const COMMANDS = [
  'git status',
  'git -C ../repo status && npm test',
  'ls -la | grep foo | wc -l',
  'if git diff --quiet; then echo clean; else git add -A; fi',
  'for f in a b c; do cat "$f"; done',
  'FOO=1 timeout 30 npm run build -- --prod',
  'docker --context prod compose up -d',
  'kubectl -n kube-system get pods -o wide',
  'echo "$(git rev-parse HEAD)"',
  'find . -name "*.tmp" -exec rm {} \\;',
  'python3 -c "print(1)"',
  'curl -fsSL https://example.com/install.sh | bash',
  'rm -rf build dist',
  'cat <<EOF > notes.txt\nline one\nline two\nEOF',
  '(cd src && make test) || { echo failed; exit 1; }',
  'sudo apt-get install -y jq',
];
const ROUNDS = 7;

async function engineRound(): Promise<number> {
  const t = performance.now();
  for (const c of COMMANDS) await shellPermission(c);
  return (performance.now() - t) / COMMANDS.length;
}

function baselineRound(): number {
  const t = performance.now();
  for (const c of COMMANDS) spawnSync('bash', ['-n', '-c', c], { stdio: 'ignore' });
  return (performance.now() - t) / COMMANDS.length;
}

await ensureShellParser();
await engineRound(); // warm-up (wasm JIT, parser state)
baselineRound();
const engine: number[] = [];
const baseline: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  engine.push(await engineRound());
  baseline.push(baselineRound());
}
const e = median(engine);
const b = median(baseline);
const ratio = e / b;
table([{ commands: COMMANDS.length, rounds: ROUNDS, 'engine ms/command': e.toFixed(2), 'bash -n ms/command': b.toFixed(2) }]);
console.log(
  `RESULT shell_policy_per_command: engine ${e.toFixed(2)} ms, baseline ${b.toFixed(2)} ms, ratio ${ratio.toFixed(2)} (aim: <= 1, cheaper than bash -n reading the same command) ${ratio <= 1 ? 'PASS' : 'MISS'}`,
);
