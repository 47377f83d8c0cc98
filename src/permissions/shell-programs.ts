/**
 * Program options that run code or write where the person did not look (issue 9 §2): each forces a
 * fresh prompt even under an allow rule for the program, and hands any command it carries to the
 * denylist as inline code (`tar --to-command='rm -rf x'` is refused like `rm -rf x`).
 */
import { isDangerousVar, shellJoin, STDIN_NAMES, type CommandInfo } from './shell-command.js';
import { ARITHMETIC_NOTE, computedSubscript } from './shell-expand.js';
import { hasShort, isLong, longValue, optionsPart, shortValue } from './shell-options.js';
import { pathLeaves } from './shell-redirect.js';
import { awk, sed } from './shell-scripts.js';

type Check = (info: CommandInfo, words: string[]) => void;

const GIT_CONFIG_RUNS_CODE = /^(alias\.|include\.|includeif\.|core\.(sshcommand|pager|editor|hookspath|fsmonitor|askpass|gitproxy|attributesfile|excludesfile|worktree)|.*\.(command|cmd|textconv|helper|driver|clean|smudge|process|program|path|tool)$|diff\.external|sequence\.editor|gpg\.|credential\.|protocol\.|uploadpack\.|receive\.|remote\..*\.(uploadpack|receivepack|proxy)$)/i;

// git global options (before the subcommand) and what each does.
const GIT_GLOBAL_VALUED = ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env', '--super-prefix', '--list-cmds', '--attr-source'];

function git(info: CommandInfo, w: string[]): void {
  const force = (why: string) => info.force.push(`git ${why}`);
  let k = 0;
  for (; k < w.length; k++) {
    const t = w[k];
    if (!t.startsWith('-') || t === '-') break;
    if (t === '-c' || t.startsWith('-c')) {
      const setting = t === '-c' ? w[k + 1] ?? '' : t.slice(2);
      force(`-c ${setting.split('=')[0]} sets configuration for this run, which can name programs git runs`);
      const eq = setting.indexOf('=');
      if (eq > 0 && GIT_CONFIG_RUNS_CODE.test(setting.slice(0, eq))) info.inline.push(setting.slice(eq + 1).replace(/^!/, ''));
    } else if (isLong(t, 'config-env')) force('--config-env sets configuration from the environment, which can name programs git runs');
    else if (t.startsWith('--exec-path=')) force('--exec-path= makes git run its commands from another folder');
    else if (isLong(t, 'git-dir') || isLong(t, 'work-tree')) force(`${t.split('=')[0]} points git at another repository, whose configuration can run programs`);
    else if (t === '-p' || isLong(t, 'paginate')) force('--paginate runs the configured pager');
    if (GIT_GLOBAL_VALUED.includes(t)) k++;
  }
  const sub = w[k];
  const rest = w.slice(k + 1);
  const opts = optionsPart(rest);
  for (let m = 0; m < opts.length; m++) {
    const t = opts[m];
    if (isLong(t, 'output', ['o', 'ou', 'out']) || isLong(t, 'output-directory') || (sub === 'format-patch' && (t === '-o' || (t.startsWith('-o') && !t.startsWith('--'))))) {
      force(`${sub} ${t.split('=')[0]} writes its output to a file it names`);
    } else if (isLong(t, 'ext-diff', ['e', 'ex'])) force(`${sub} --ext-diff runs the configured external diff program`);
    else if (isLong(t, 'textconv', ['t', 'te', 'tex', 'text'])) force(`${sub} --textconv runs the configured text conversion program`);
    else if (sub === 'grep' && (hasShort(t, 'O') || isLong(t, 'open-files-in-pager', ['o']))) {
      force('grep -O opens the matches in a program it names');
      const value = t.startsWith('--') ? (t.includes('=') ? longValue(opts, m) : undefined) : shortValue(opts, m, 'O');
      if (value) info.inline.push(value);
    } else if (isLong(t, 'upload-pack', ['u']) || isLong(t, 'receive-pack', ['r']) || isLong(t, 'exec', ['e', 'ex']) || (['clone', 'fetch', 'pull', 'ls-remote'].includes(sub ?? '') && t === '-u') || (sub === 'rebase' && t === '-x')) {
      force(`${sub} ${t.split('=')[0]} runs a command it names`);
      const value = t.startsWith('--') ? longValue(opts, m) : opts[m + 1];
      if (value) info.inline.push(value);
    } else if (isLong(t, 'template', ['t'])) force(`${sub} --template copies hooks from another folder`);
    else if ((sub === 'clone' || sub === 'submodule') && (t === '-c' || isLong(t, 'config', ['c']))) force(`${sub} ${t} sets configuration that can name programs git runs`);
    else if ((sub === 'difftool' || sub === 'mergetool') && (t === '-x' || t === '-t' || isLong(t, 'extcmd') || isLong(t, 'tool', ['t']))) {
      force(`${sub} ${t.split('=')[0]} runs a program it names`);
      const value = t.startsWith('--') ? longValue(opts, m) : opts[m + 1];
      if (value) info.inline.push(value);
    }
  }
  if (rest.some((t) => /^ext::/.test(t))) force(`${sub} with an ext:: URL runs a command as the remote`);
  if (sub === 'submodule' && rest.includes('foreach')) {
    force('submodule foreach runs a command in every submodule');
    info.inline.push(rest.slice(rest.indexOf('foreach') + 1).filter((t) => !t.startsWith('-')).join(' '));
  }
  if (sub === 'bisect' && rest[0] === 'run') {
    force('bisect run runs a command');
    info.inline.push(rest.slice(1).join(' '));
  }
  if (sub === 'filter-branch' || sub === 'filter-repo') force(`${sub} runs the filters it is given as shell code`);
  if (sub === 'config') {
    const positional = rest.filter((t) => !t.startsWith('-'));
    const writes = positional.length >= 2 || /^(set|edit|unset|rename-section|remove-section)$/.test(positional[0] ?? '') || rest.some((t) => /^(-e|--edit|--add|--replace-all|--unset|--unset-all)$/.test(t));
    if (writes) force('config changes configuration, which can name programs git runs later');
  }
  if (sub === 'clean' && rest.some((t) => hasShort(t, 'f') || isLong(t, 'force'))) {
    force('clean -f deletes untracked files');
    // Ignored files are what a person keeps out of git on purpose and cannot get back from it.
    if (opts.some((t) => hasShort(t, 'x', 'e'))) force('clean -x also deletes ignored files (.env, builds, node_modules), which git cannot restore');
    if (opts.some((t) => hasShort(t, 'X', 'e'))) force('clean -X deletes ignored files (.env, builds, node_modules), which git cannot restore');
  }
}

const FIND_ACTIONS = /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/;

function find(info: CommandInfo, w: string[]): void {
  for (let k = 0; k < w.length; k++) {
    const t = w[k];
    if (!FIND_ACTIONS.test(t)) continue;
    info.force.push(`find ${t} ${t === '-delete' ? 'deletes what it finds' : /^-f/.test(t) ? 'writes to a file it names' : 'runs a command on what it finds'}`);
    if (/^-(exec|execdir|ok|okdir)$/.test(t)) {
      const end = w.findIndex((x, m) => m > k && (x === ';' || x === '+'));
      info.inline.push(shellJoin(info.args.slice(k + 1, end < 0 ? undefined : end).filter((a) => a.text !== '{}')));
    }
  }
}

function rg(info: CommandInfo, w: string[]): void {
  for (const t of optionsPart(w)) {
    if (t === '--pre' || t.startsWith('--pre=')) info.force.push('rg --pre runs a program on every file it searches');
    if (t === '--hostname-bin' || t.startsWith('--hostname-bin=')) info.force.push('rg --hostname-bin runs a program');
  }
}

const TAR_COMMANDS = ['to-command', 'use-compress-program', 'checkpoint-action', 'info-script', 'new-volume-script', 'rmt-command', 'rsh-command'];

function tar(info: CommandInfo, w: string[]): void {
  const opts = optionsPart(w);
  for (let k = 0; k < opts.length; k++) {
    const t = opts[k];
    const long = TAR_COMMANDS.find((n) => isLong(t, n, ['to', 't', 'r', 'u', 'c', 'ch', 'n', 'i']));
    if (long) {
      info.force.push(`tar --${long} runs a command it names`);
      const v = longValue(opts, k);
      if (v !== undefined) info.inline.push(long === 'checkpoint-action' ? v.replace(/^(exec|sleep|echo|bell|dot|ttyout|wait)=/, '') : v);
      continue;
    }
    // Short clusters (and the old dash-less first word) with -I (compress program) or -F (info script).
    const cluster = t.startsWith('-') && !t.startsWith('--') ? t : k === 0 && /^[A-Za-z]+$/.test(t) ? `-${t}` : '';
    for (const letter of ['I', 'F']) {
      if (cluster && hasShort(cluster, letter, 'bCfgHKLNTVX')) {
        info.force.push(`tar -${letter} runs a command it names`);
        const v = shortValue([cluster, ...opts.slice(k + 1)], 0, letter);
        if (v !== undefined) info.inline.push(v);
      }
    }
  }
}

function zip(info: CommandInfo, w: string[]): void {
  const opts = optionsPart(w);
  for (let k = 0; k < opts.length; k++) {
    const t = opts[k];
    if (t === '-TT' || isLong(t, 'unzip-command', ['u'])) {
      info.force.push('zip -TT runs a command it names to test the archive');
      const v = t === '-TT' ? opts[k + 1] : longValue(opts, k);
      if (v !== undefined) info.inline.push(v);
    } else if (hasShort(t, 'm', 'bnOtxi') || isLong(t, 'move', ['m'])) info.force.push('zip -m deletes the files it adds');
  }
}

function pager(info: CommandInfo, w: string[]): void {
  for (const t of optionsPart(w)) {
    if (t.startsWith('+')) info.force.push(`${info.program} ${t} runs initial commands, which can start a shell`);
    else if (/^-[oOk]/.test(t) || ['log-file', 'LOG-FILE', 'lesskey-file', 'lesskey-src', 'lesskey-content'].some((n) => isLong(t, n, ['l', 'L']))) {
      info.force.push(`${info.program} ${t} writes a log file or reads key bindings that can run commands`);
    }
  }
}

function man(info: CommandInfo, w: string[]): void {
  for (let k = 0; k < w.length; k++) {
    const t = w[k];
    if (t === '-P' || t.startsWith('-P') || isLong(t, 'pager', ['p']) || /^-H/.test(t) || isLong(t, 'html', ['h']) || isLong(t, 'browser')) {
      info.force.push(`man ${t.split('=')[0]} runs a program it names`);
      const v = t.startsWith('--') ? longValue(w, k) : t.length > 2 ? t.slice(2) : w[k + 1];
      if (v !== undefined && /^-P|^--p/.test(t)) info.inline.push(v);
    }
  }
}

const SSH_VALUED = 'BbcDEeFIiJLlmOopQRSWw';
const SSH_COMMAND_OPTION = /^(proxycommand|localcommand|permitlocalcommand|knownhostscommand|remotecommand|include|match)\b/i;

function ssh(info: CommandInfo, w: string[]): void {
  const name = info.program!;
  let k = 0;
  for (; k < w.length; k++) {
    const t = w[k];
    if (t === '--') {
      k++;
      break;
    }
    if (!t.startsWith('-') || t === '-') break;
    const letter = t[1];
    if (letter === 'o') {
      const v = t.length > 2 ? t.slice(2) : w[++k] ?? '';
      if (SSH_COMMAND_OPTION.test(v)) {
        info.force.push(`${name} -o ${v.split(/[=\s]/)[0]} runs a local command`);
        info.inline.push(v.replace(/^[A-Za-z]+\s*[=\s]\s*/, ''));
      }
    } else if (letter === 'F' || (letter === 'S' && name !== 'ssh') || (letter === 'D' && name === 'sftp')) {
      info.force.push(`${name} -${letter} runs a program or reads a configuration that can`);
      if (t.length === 2) k++;
    } else if (SSH_VALUED.includes(letter) && t.length === 2) k++;
  }
  if (name !== 'ssh') return;
  const remote = w.slice(k + 1);
  if (remote.length) {
    info.force.push('ssh runs a command on another machine');
    info.inline.push(remote.join(' '));
  }
}

function rsync(info: CommandInfo, w: string[]): void {
  const opts = optionsPart(w);
  for (let k = 0; k < opts.length; k++) {
    const t = opts[k];
    if (t === '-e' || (hasShort(t, 'e') && !t.startsWith('--')) || isLong(t, 'rsh', ['r', 'rs'])) {
      info.force.push('rsync -e runs the remote shell program it names');
      const v = t.startsWith('--') ? longValue(opts, k) : shortValue(opts, k, 'e');
      if (v !== undefined) info.inline.push(v);
    } else if (isLong(t, 'rsync-path', ['r', 'rs'])) info.force.push('rsync --rsync-path runs a command on the remote side');
  }
}

function make(info: CommandInfo, w: string[]): void {
  for (let k = 0; k < w.length; k++) {
    const t = w[k];
    if (t === '-E' || t.startsWith('-E') || isLong(t, 'eval', ['e'])) info.force.push('make --eval adds makefile rules given on the command line');
    else if (/^[A-Za-z_][A-Za-z0-9_.]*[:+?!]?=/.test(t)) info.force.push(`make ${t.split('=')[0]}= overrides a variable, which can change the commands its recipes run`);
    else if (t === '-f' || (t.startsWith('-f') && !t.startsWith('--')) || isLong(t, 'file', ['f']) || isLong(t, 'makefile')) {
      const file = t.startsWith('--') ? longValue(w, k) : t.length > 2 ? t.slice(2) : w[k + 1];
      // A makefile read from standard input is an interpreter fed code: its recipes are shell commands.
      if (file !== undefined && STDIN_NAMES.test(file)) {
        info.force.push(`make -f ${file} reads a makefile, whose recipes are shell commands, from standard input`);
        for (const body of info.segment.stdin ?? []) info.inline.push(...recipes(body));
      }
    }
  }
}

/** The shell commands of a makefile: recipe lines (after a tab, `@-+` prefixes off) and `$(shell ...)` calls. */
function recipes(makefile: string): string[] {
  const out = makefile.split('\n').filter((l) => l.startsWith('\t')).map((l) => l.slice(1).replace(/^[@+-]+/, ''));
  for (const m of makefile.matchAll(/\$[({]shell\s+([^)}]*)[)}]/g)) out.push(m[1]);
  return out;
}

/** `mapfile -C cmd` / `readarray -C cmd` runs `cmd` as shell code every few lines it reads. */
function mapfile(info: CommandInfo, w: string[]): void {
  for (let k = 0; k < w.length; k++) {
    if (!hasShort(w[k], 'C', 'dnOsuc')) continue;
    info.force.push(`${info.program} -C runs a callback as shell code for the lines it reads`);
    const v = shortValue(w, k, 'C');
    if (v !== undefined) info.inline.push(v);
  }
}

/** `hash -p ./evil git` makes `git` run another file; `enable -f lib.so name` loads a builtin from a library. */
function hash(info: CommandInfo, w: string[]): void {
  if (w.some((t) => hasShort(t, 'p'))) info.force.push('hash -p makes a command name run the file it names');
}

function enable(info: CommandInfo, w: string[]): void {
  if (w.some((t) => hasShort(t, 'f'))) info.force.push('enable -f loads a builtin from a shared library');
}

function alias(info: CommandInfo, w: string[]): void {
  for (const t of w) {
    const eq = t.indexOf('=');
    if (eq <= 0) continue;
    info.force.push(`alias defines ${t.slice(0, eq)} as a command`);
    info.inline.push(t.slice(eq + 1));
  }
}

function shopt(info: CommandInfo, w: string[]): void {
  if (w.includes('-s') && w.some((t) => /^(expand_aliases|extdebug)$/.test(t))) info.force.push('shopt turns on alias expansion or debugging hooks that run code');
}

function set(info: CommandInfo, w: string[]): void {
  if (w.some((t) => /^-[A-Za-z]*a/.test(t)) || (w.includes('-o') && w.includes('allexport'))) info.force.push('set -a exports every later assignment to the programs the command runs');
}

// Builtins that take variable names: a subscript in a name is evaluated as arithmetic.
const NAME_TAKERS = new Set(['read', 'unset', 'mapfile', 'readarray', 'getopts', 'wait', 'printf', 'declare', 'typeset', 'local', 'export', 'readonly', 'let']);

function names(info: CommandInfo, w: string[]): void {
  const program = info.program!;
  const assigned = w.find((t) => isDangerousVar(t.split('=')[0].replace(/\[.*$/, '')));
  if (assigned) info.force.push(`${program} assigns ${assigned.split('=')[0]}, which changes what programs run or load`);
  if (program === 'let' && w.length) info.force.push('let evaluates arithmetic, which can run code held in variables');
  if (w.some((t) => t.includes('[') && computedSubscript(t))) info.force.push(ARITHMETIC_NOTE);
  if (/^(declare|typeset|local)$/.test(program) && w.some((t) => /^-[A-Za-z]*[in]/.test(t))) {
    info.force.push(`${program} -i/-n evaluates later values as arithmetic or names, which can run code`);
  }
}

// Programs that write to the paths in their arguments (the destination: every path, or the last one).
const WRITES_EVERY = new Set(['tee', 'touch', 'truncate', 'mkdir', 'ln', 'install', 'shred', 'chmod', 'chown', 'chgrp', 'patch']);
const WRITES_LAST = new Set(['cp', 'mv', 'rsync', 'scp']);

// Options whose value is a file the program writes (`curl -o ~/.bashrc`, `sort -o /etc/x`).
const OUTPUT_OPTIONS: Record<string, { short: string; long: string[] }> = {
  curl: { short: 'o', long: ['output', 'output-dir', 'dump-header', 'cookie-jar', 'trace', 'trace-ascii', 'stderr'] },
  wget: { short: 'OPoa', long: ['output-document', 'directory-prefix', 'output-file', 'append-output', 'save-cookies'] },
  sort: { short: 'o', long: ['output'] },
  tar: { short: 'f', long: ['file'] },
};

/** The values of `program`'s output options in `w`. */
function outputTargets(program: string, w: string[]): string[] {
  const spec = OUTPUT_OPTIONS[program];
  if (!spec) return [];
  const out: string[] = [];
  const opts = optionsPart(w);
  for (let k = 0; k < opts.length; k++) {
    const t = opts[k];
    const long = spec.long.find((n) => isLong(t, n, ['o', 'ou', 'out', 'd', 'a', 'f', 's', 't', 'c']));
    if (long) out.push(t.includes('=') ? t.slice(t.indexOf('=') + 1) : opts[k + 1]);
    else for (const letter of spec.short) if (!t.startsWith('--') && t.startsWith('-') && t.endsWith(letter) && hasShort(t, letter)) out.push(opts[k + 1]);
    for (const letter of spec.short) if (t.length > 2 && t.startsWith(`-${letter}`) && !t.startsWith('--')) out.push(t.slice(2));
  }
  return out.filter((x): x is string => x !== undefined);
}

/** `tee ~/.bashrc`, `cp x .git/hooks/pre-commit`, `ln -s ~/.ssh keys`, `curl -o ~/.profile`: the same class as a redirect. */
function writesOutside(info: CommandInfo, w: string[]): void {
  const program = info.program!;
  const paths = w.filter((t) => !t.startsWith('-') || t === '-');
  const targetDir = w.findIndex((t) => t === '-t' || t.startsWith('--target-directory'));
  const targets = OUTPUT_OPTIONS[program]
    ? outputTargets(program, w)
    : WRITES_EVERY.has(program)
      ? paths
      : targetDir >= 0
        ? [w[targetDir].includes('=') ? w[targetDir].split('=')[1] : w[targetDir + 1]]
        : paths.slice(-1);
  for (const t of targets) {
    if (t === undefined || t === '-' || (program === 'scp' && /^[^/]*:/.test(t))) continue;
    const where = pathLeaves(t);
    if (where === 'git') return void info.force.push(`${program} writes into ${t}, a .git folder whose configuration and hooks name programs git runs`);
    if (where === 'outside' && !/^\/dev\/(null|stdout|stderr|tty)$/.test(t)) return void info.force.push(`${program} writes to ${t}, outside the folder it runs in`);
  }
}

// `cd` with no operand goes home; after a `cd` out of the folder, relative redirections and paths
// point outside it.
function cd(info: CommandInfo, w: string[]): void {
  const target = w.filter((t) => !/^-[LPe@]+$/.test(t))[0];
  if (info.program === 'popd' || target === undefined || pathLeaves(target)) info.force.push(`${info.program}${target ? ` ${target}` : ''} moves the command out of the folder it runs in`);
}

const CHECKS: Record<string, Check> = {
  cd,
  pushd: cd,
  popd: cd,
  git,
  find,
  rg,
  sed,
  gsed: sed,
  awk,
  gawk: awk,
  mawk: awk,
  nawk: awk,
  tar,
  gtar: tar,
  bsdtar: tar,
  zip,
  less: pager,
  more: pager,
  man,
  ssh,
  scp: ssh,
  sftp: ssh,
  rsync,
  make,
  gmake: make,
  mapfile,
  readarray: mapfile,
  hash,
  enable,
  alias,
  shopt,
  set,
};

/** Adds the forced-prompt reasons and inline code of `info.program`'s options. */
export function programRisks(info: CommandInfo): void {
  const program = info.program;
  if (!program) return;
  const words = info.args.map((a) => a.text);
  CHECKS[program]?.(info, words);
  if (WRITES_EVERY.has(program) || WRITES_LAST.has(program) || OUTPUT_OPTIONS[program]) writesOutside(info, words);
  if (NAME_TAKERS.has(program) || info.segment.kind === 'declaration') names(info, words);
}
