/**
 * What keeps a repository's own programs from running when the engine runs git there. A model can
 * write a repository's `.git` (a repository a command creates is unprotected while it runs, and a
 * new `commondir` points git at a writable copy), so every setting that names a program is taken away from the
 * repository on every command line the engine builds (command-line settings win over every file).
 * `PROGRAM_SETTINGS` says, for each git setting that names a program, how it is covered; the
 * checklist test (test/security/git-neutral.test.ts) reads `git help --config` and fails when git
 * knows one it does not list. docs/security.md, "Engine-side git", says why this and the sandbox.
 */

/** Settings given on every command line, with a value that runs nothing. */
export const NEUTRAL_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.pager', 'cat'],
  // git never starts an editor named ":" (editor.c); the engine passes every message itself.
  ['core.editor', ':'],
  ['sequence.editor', ':'],
  // An empty askPass is skipped (prompt.c); GIT_ASKPASS='' in the environment says the same.
  ['core.askPass', ''],
  // An empty value empties the list of helpers.
  ['credential.helper', ''],
  // No transport at all: ssh commands, proxies, remote helpers (remote.<name>.vcs), upload-pack and
  // receive-pack programs are only reached through one, and the engine never fetches or pushes.
  ['protocol.allow', 'never'],
  // Signing runs gpg.program and its kin; verifying runs them too.
  ['commit.gpgSign', 'false'],
  ['tag.gpgSign', 'false'],
  ['log.showSignature', 'false'],
  ['push.gpgSign', 'false'],
  // Nested repositories are never asked for their status (that is a `git status` run in them,
  // with their own configuration): see also SUBMODULE_FLAG.
  ['diff.ignoreSubmodules', 'dirty'],
  ['status.submoduleSummary', 'false'],
  ['submodule.recurse', 'false'],
];

/** Subcommands that show diffs: no external diff program, no textconv program (flags beat config and attributes). */
const DIFF_COMMANDS = new Set(['diff', 'log', 'show', 'format-patch', 'whatchanged']);
/** Subcommands that may look into a nested repository's work tree; the flag beats `submodule.<name>.ignore`. */
const SUBMODULE_COMMANDS = new Set(['status', 'diff', 'diff-index', 'diff-files']);
const SUBMODULE_FLAG = '--ignore-submodules=dirty';

/** A per-driver setting that names a program (the driver is picked by a `.gitattributes` line). */
const DRIVER_KEY = /^(filter|diff|merge)\.(.+)\.(clean|smudge|process|command|textconv|driver)$/i;

/**
 * Command-line settings that switch off every driver program found in a `git config --list
 * --name-only` listing (the repository's files as git reads them, includes followed), given as
 * GIT_CONFIG_COUNT/KEY/VALUE variables: a driver's name may hold "=", which `-c` would split on.
 * A filter with no program passes content through; `required=false` keeps a required one from
 * failing the command.
 */
export function driverOverrides(names: string[]): Record<string, string> {
  const pairs = new Map<string, string>();
  for (const name of names) {
    const m = DRIVER_KEY.exec(name);
    if (!m) continue;
    pairs.set(name, '');
    if (m[1].toLowerCase() === 'filter') pairs.set(`${m[1]}.${m[2]}.required`, 'false');
  }
  const env: Record<string, string> = {};
  if (!pairs.size) return env;
  let i = 0;
  for (const [key, value] of pairs) {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i++}`] = value;
  }
  env.GIT_CONFIG_COUNT = String(i);
  return env;
}

/** The flags a subcommand gets right after its name (see DIFF_COMMANDS, SUBMODULE_COMMANDS). */
export function subcommandFlags(sub: string | undefined): string[] {
  if (!sub) return [];
  const flags: string[] = [];
  if (DIFF_COMMANDS.has(sub)) flags.push('--no-ext-diff', '--no-textconv');
  if (SUBMODULE_COMMANDS.has(sub)) flags.push(SUBMODULE_FLAG);
  return flags;
}

/** Inserts the subcommand's flags after its name (the first argument that is neither `-c x` nor an option). */
export function withSubcommandFlags(args: string[]): string[] {
  let i = 0;
  while (i < args.length && args[i].startsWith('-')) i += args[i] === '-c' || args[i] === '-C' ? 2 : 1;
  const flags = subcommandFlags(args[i]);
  return flags.length ? [...args.slice(0, i + 1), ...flags, ...args.slice(i + 1)] : args;
}

type Cover = 'command line' | 'driver' | 'flag' | 'transport' | 'no terminal' | 'not run' | 'data' | 'signing';

/**
 * Every git setting that names a program (or pulls in settings that may), and how it is covered:
 *   command line: NEUTRAL_CONFIG sets it to a value that runs nothing;
 *   driver:       driverOverrides() empties it for every driver the repository names, and without
 *                 a definition a `.gitattributes` line names nothing;
 *   flag:         --no-ext-diff / --no-textconv on every diff-showing subcommand;
 *   transport:    protocol.allow=never, and the engine never fetches or pushes;
 *   no terminal:  git starts a pager only when its output is a terminal (GIT_PAGER=cat besides);
 *   signing:      signing and verifying are switched off on the command line;
 *   not run:      only a subcommand the engine never runs reads it (tools, browsers, mail, cvs, help);
 *   data:         it reads more configuration, as data; what that holds is covered by the above.
 * Keys are as `git help --config` prints them.
 */
export const PROGRAM_SETTINGS: Record<string, Cover> = {
  'core.fsmonitor': 'command line',
  'core.hooksPath': 'command line',
  'core.pager': 'command line',
  'core.editor': 'command line',
  'sequence.editor': 'command line',
  'core.askPass': 'command line',
  'credential.helper': 'command line',
  'credential.<url>.helper': 'transport',
  'filter.<driver>.clean': 'driver',
  'filter.<driver>.smudge': 'driver',
  'filter.<driver>.process': 'driver',
  'diff.<driver>.textconv': 'driver',
  'diff.<driver>.command': 'flag',
  'diff.external': 'flag',
  'merge.<driver>.driver': 'driver',
  'core.sshCommand': 'transport',
  'core.gitProxy': 'transport',
  'core.alternateRefsCommand': 'transport',
  'remote.<name>.uploadpack': 'transport',
  'remote.<name>.receivepack': 'transport',
  'remote.<name>.vcs': 'transport',
  'remote.<name>.proxy': 'transport',
  'http.proxy': 'transport',
  'uploadpack.packObjectsHook': 'transport',
  'pager.<cmd>': 'no terminal',
  'color.pager': 'no terminal',
  'gpg.program': 'signing',
  'gpg.<format>.program': 'signing',
  'gpg.ssh.defaultKeyCommand': 'signing',
  'include.path': 'data',
  'includeIf.<condition>.path': 'data',
  'browser.<tool>.cmd': 'not run',
  'browser.<tool>.path': 'not run',
  'web.browser': 'not run',
  'help.browser': 'not run',
  'instaweb.browser': 'not run',
  'man.<tool>.cmd': 'not run',
  'man.<tool>.path': 'not run',
  'diff.tool': 'not run',
  'diff.guitool': 'not run',
  'difftool.<tool>.cmd': 'not run',
  'difftool.<tool>.path': 'not run',
  'merge.tool': 'not run',
  'merge.guitool': 'not run',
  'mergetool.<tool>.cmd': 'not run',
  'mergetool.<tool>.path': 'not run',
  'guitool.<name>.cmd': 'not run',
  'sendemail.ccCmd': 'not run',
  'sendemail.toCmd': 'not run',
  'sendemail.tocmd': 'not run',
  'gitcvs.dbDriver': 'not run',
  'notes.rewrite.<command>': 'not run',
};
