/**
 * Rule keys for one shell segment: `run_shell(<program> <sub>:*)` or `run_shell(<program>:*)`.
 * A flag's value is never a subcommand: after a flag whose arity the policy does not know, the next
 * word may be its value (`mysqldump --password hunter2 db`), so the key falls back to the program
 * alone. A subcommand is keyed by its literal value; one written in quotes, or not known until the
 * shell runs, forces a fresh prompt. A subcommand shaped like a secret is never put in a key.
 */
import type { ShellWord } from './shell-parse.js';
import { maskSecrets } from './mask.js';

export const TOOL = 'run_shell';
const SUB_SHAPE = /^[A-Za-z][A-Za-z0-9_-]{0,39}$/;

// Options of known programs that take a value as the next word (so the value is never the subcommand).
const VALUED_OPTIONS: Record<string, string[]> = {
  git: ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env', '--super-prefix', '--list-cmds', '--attr-source'],
  docker: ['--context', '-c', '--host', '-H', '--config', '--log-level', '-l', '--tlscacert', '--tlscert', '--tlskey'],
  podman: ['--connection', '-c', '--url', '--root', '--runroot', '--log-level'],
  npm: ['--prefix', '-C', '--workspace', '-w', '--cache', '--userconfig', '--registry', '--loglevel'],
  pnpm: ['--dir', '-C', '--filter', '-F', '--workspace-dir', '--loglevel'],
  yarn: ['--cwd'],
  npx: ['-p', '--package'],
  kubectl: ['-n', '--namespace', '--context', '--kubeconfig', '--cluster', '--user', '-s', '--server', '--token', '--as', '-v'],
  helm: ['-n', '--namespace', '--kube-context', '--kubeconfig'],
  cargo: ['--manifest-path', '--config', '-Z', '--color'],
  make: ['-C', '-f', '--file', '--directory', '-j', '-l', '-o', '-W'],
  gmake: ['-C', '-f', '--file', '--directory', '-j', '-l', '-o', '-W'],
  go: ['-C'],
  gh: ['-R', '--repo'],
  systemctl: ['-H', '--host', '-M', '--machine'],
  aws: ['--profile', '--region', '--output', '--endpoint-url'],
  gcloud: ['--project', '--account', '--configuration'],
  az: ['--subscription'],
  uv: ['--directory', '--project', '--python', '-p'],
  poetry: ['-C', '--directory'],
  bundle: ['--gemfile'],
};

// Options known to take no value, per program (before the subcommand).
const BOOLEAN_OPTIONS: Record<string, string[]> = {
  git: ['--bare', '--literal-pathspecs', '--glob-pathspecs', '--noglob-pathspecs', '--icase-pathspecs', '-P', '-p', '--paginate', '--html-path', '--man-path', '--info-path', '--exec-path'],
  docker: ['-D', '--tls', '--tlsverify'],
  podman: ['--remote', '-r'],
  npm: ['-g', '--global', '-s', '--silent', '-q', '-d', '-dd', '-ddd', '-y', '--yes'],
  pnpm: ['-r', '--recursive', '-w', '--workspace-root', '-s', '--silent'],
  yarn: ['-s', '--silent'],
  cargo: ['-v', '-vv', '-q', '--frozen', '--locked', '--offline'],
  make: ['-s', '-k', '-n', '-B', '-i', '-q', '-r', '-R', '-w', '-e', '-S', '-t', '--silent', '--keep-going', '--dry-run', '--always-make', '--ignore-errors', '--question'],
  gmake: ['-s', '-k', '-n', '-B', '-i', '-q', '-r', '-R', '-w', '-e', '-S', '-t', '--silent', '--keep-going', '--dry-run', '--always-make', '--ignore-errors', '--question'],
  poetry: ['-q', '-v', '-n', '--no-interaction'],
  uv: ['-q', '-v', '--offline'],
};
// Options that never take a value, whatever the program.
const UNIVERSAL_BOOLEAN = /^(--help|--version|--verbose|--quiet|--debug|--no-[a-z0-9-]+)$/;

export interface SubcommandResult {
  sub?: string;
  /** Why the subcommand position forces a fresh prompt (quoted, or only known at run time). */
  force?: string;
}

/** The subcommand of `program args`, keyed by its literal value. */
export function subcommandOf(program: string, args: ShellWord[]): SubcommandResult {
  const valued = VALUED_OPTIONS[program] ?? [];
  const booleans = BOOLEAN_OPTIONS[program] ?? [];
  let unknownArity = false;
  for (let k = 0; k < args.length; k++) {
    const a = args[k];
    if (!a.static) return { force: `the subcommand position holds ${a.raw}, which is only known when the shell runs it` };
    const t = a.text;
    if (t === '--') continue;
    if (t.startsWith('-') && t !== '-' && !a.quoted) {
      if (valued.includes(t)) k++;
      else if (!t.includes('=') && !booleans.includes(t) && !UNIVERSAL_BOOLEAN.test(t)) unknownArity = true;
      else unknownArity = false;
      continue;
    }
    // After an option the policy cannot read, this word may be that option's value (a password).
    if (unknownArity) return {};
    if (!a.quoted && (t.includes('/') || t.startsWith('.') || t.startsWith('~') || t.includes('='))) continue;
    if (!SUB_SHAPE.test(t) || secretShaped(t)) return {};
    return a.quoted ? { sub: t, force: `the subcommand ${a.raw} is written with quotes or escapes` } : { sub: t };
  }
  return {};
}

/** A word that looks like a credential rather than a subcommand name. */
function secretShaped(word: string): boolean {
  if (maskSecrets(word) !== word) return true;
  const digits = /[0-9]/.test(word);
  const letters = /[A-Za-z]/.test(word);
  return (word.length >= 16 && digits && letters) || word.length >= 32;
}
