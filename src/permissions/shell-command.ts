/**
 * What one shell segment runs: the program after unwrapping assignments and plain wrappers, its
 * subcommand, its rule keys, and the reasons it must be asked about afresh (seed 001 §5 rules 1-2).
 * Shared by the shell policy (keys, forced prompts) and the denylist (what really runs).
 */
import type { ShellSegment, ShellWord } from './shell-parse.js';
import { subcommandOf, TOOL } from './shell-keys.js';
import { programRisks } from './shell-programs.js';
import { redirectRisk } from './shell-redirect.js';

export { TOOL };

export interface CommandInfo {
  segment: ShellSegment;
  /** The program's basename (quotes and backslashes removed), or the raw text when it is not static. */
  program?: string;
  /** The program as written when that is a path (`./git`, `/usr/bin/git`): a different program than PATH's, keyed apart. */
  path?: string;
  /** The words after the program. */
  args: ShellWord[];
  sub?: string;
  /** `run_shell(<program> <sub>:*)` or `run_shell(<program>:*)`. */
  key?: string;
  /** `run_shell(<program>:*)` when `key` names a subcommand. */
  broaderKey?: string;
  /** The program name is only known when the shell runs it (an expansion or a glob). */
  dynamic?: boolean;
  /** Wrappers stripped on the way (env, timeout, sudo, xargs ...). */
  wrappers: string[];
  /** Every assignment that applies to the command (leading, `env X=`, export). */
  assignments: Array<{ name: string; value: ShellWord | undefined }>;
  /** Why this segment needs a fresh prompt even when a rule allows its key. */
  force: string[];
  /** Code handed over as strings (`sh -c`, `eval`, `find -exec`, `su -c` ...), for the denylist to read too. */
  inline: string[];
  /** Program text of a non-shell interpreter the parser can see (`python3 -c`, `node -e`, a here-document on stdin). */
  code: string[];
}


export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'yash', 'rbash']);

// Interpreters and the flags that hand them code as a string.
const INLINE_FLAGS: Array<[RegExp, RegExp]> = [
  [/^python[0-9.]*$|^pypy[0-9.]*$/, /^-[A-Za-z]*c[A-Za-z]*$/],
  [/^(node|nodejs)$/, /^(-[A-Za-z]*[ep][A-Za-z]*|--eval|--print)(=.*)?$/],
  [/^bun$/, /^(-e|-p|--eval|--print)(=.*)?$/],
  [/^deno$/, /^(-e|--eval)$/],
  [/^perl[0-9.]*$/, /^-[A-Za-z]*[eE][A-Za-z]*$/],
  [/^ruby[0-9.]*$|^jruby$/, /^-[A-Za-z]*e[A-Za-z]*$/],
  [/^php[0-9.]*$/, /^-[A-Za-z]*[rRBEF][A-Za-z]*$/],
  [/^(lua|luajit)[0-9.]*$/, /^-e$/],
  [/^(Rscript|R)$/, /^(-e|--expr)$/],
  [/^osascript$/, /^-e$/],
  [/^(pwsh|powershell)$/, /^-(c|command|e|ec|encodedcommand)$/i],
  [/^(tclsh|wish)$/, /^-c$/],
];
export const INTERPRETERS = /^(python[0-9.]*|pypy[0-9.]*|node|nodejs|bun|deno|perl[0-9.]*|ruby[0-9.]*|php[0-9.]*|lua[0-9.]*|luajit|Rscript|osascript|pwsh|powershell|tclsh)$/;

// Assignments that change what a later program is or what it loads, even without `export`
// (the shell's own lookups, and variables the engine's shell already exports).
const DANGEROUS_VARS = new Set(
  (
    'PATH LD_PRELOAD LD_LIBRARY_PATH LD_AUDIT NODE_OPTIONS NODE_PATH BASH_ENV ENV PROMPT_COMMAND IFS SHELLOPTS BASHOPTS PS4 HOME SHELL ' +
    'PYTHONPATH PYTHONSTARTUP PYTHONHOME PERL5OPT PERL5LIB PERLLIB RUBYOPT RUBYLIB GCONV_PATH JAVA_TOOL_OPTIONS _JAVA_OPTIONS ' +
    'PAGER EDITOR VISUAL BROWSER MANPAGER MANOPT LESSOPEN LESSCLOSE LESSKEYIN TAR_OPTIONS RIPGREP_CONFIG_PATH MAKEFLAGS MFLAGS GNUMAKEFLAGS ' +
    'SSH_ASKPASS SUDO_ASKPASS CURL_HOME WGETRC'
  ).split(' '),
);
export const isDangerousVar = (name: string) =>
  DANGEROUS_VARS.has(name) ||
  /^(DYLD_|LD_|GIT_|XDG_|npm_config_|NPM_CONFIG_|CARGO_|RUSTC|PIP_|BUNDLE_|GEM_)/.test(name) ||
  /_(OPTIONS|OPTS|FLAGS|CONFIG|COMMAND|PROGRAM|WRAPPER)$/.test(name);

// Variables a command may set for the program it runs without a fresh prompt: they only tune output,
// locale or mode. Any other variable may be one the program reads to find code or configuration.
const HARMLESS_VARS =
  /^(NODE_ENV|CI|DEBUG|FORCE_COLOR|NO_COLOR|CLICOLOR|CLICOLOR_FORCE|COLORTERM|TERM|COLUMNS|LINES|LANG|LANGUAGE|LC_[A-Z]+|TZ|RUST_LOG|RUST_BACKTRACE|PYTHONUNBUFFERED|PYTHONDONTWRITEBYTECODE|PYTHONIOENCODING|NODE_NO_WARNINGS|LOG_LEVEL|VERBOSE|PORT|TIMEOUT|GOOS|GOARCH|CGO_ENABLED|DEBIAN_FRONTEND)$/;

// Programs whose first positional word is an operand (file, pattern, host, text), never a subcommand.
const NO_SUBCOMMAND = new Set(
  (
    'echo printf cat tac ls ll la dir head tail less more wc grep egrep fgrep rg ag ack sed awk gawk mawk sort uniq cut tr tee touch mkdir rmdir rm cp mv ln ' +
    'chmod chown chgrp stat file find fd fdfind which whereis type pwd cd pushd popd true false sleep date whoami id uname hostname printenv diff cmp ' +
    'basename dirname realpath readlink du df ps kill killall pkill pgrep top htop free uptime test [ xxd od hexdump base64 md5sum sha1sum sha256sum shasum ' +
    'jq yq tar zip unzip gzip gunzip bzip2 xz zstd curl wget ping ssh scp rsync open xdg-open code vim vi nano nvim emacs man tree exit return set shift ' +
    'read wait alias unalias history clear column nl paste join split fold rev seq yes expr bc let local export declare readonly typeset unset source . ' +
    'eval exec trap sh bash zsh dash ksh fish python python3 node perl ruby php deno lua tsc tsx ts-node strings nproc tput stty umask ulimit getconf ' +
    'mktemp install patch sha512sum cksum iconv envsubst watch nc netcat telnet dig nslookup host whois traceroute lsof say notify-send'
  ).split(' '),
);

// Programs that run the command given in their arguments, after options and operands of their own.
// They keep their own key (a rule for `flock` is a rule for what it runs); the denylist looks inside.
const RUNNERS = new Set(
  (
    'strace ltrace flock taskset chrt chroot unshare setpriv firejail bwrap proxychains proxychains4 torsocks faketime ' +
    'valgrind systemd-run unbuffer caffeinate rlwrap numactl cgexec catchsegv script sg runuser'
  ).split(' '),
);

/** Words joined back into shell text, each quoted when it needs it (inline code is parsed again). */
export function shellJoin(words: ShellWord[]): string {
  return words.map((w) => (w.static ? quoteWord(w.text) : w.raw)).join(' ');
}

function quoteWord(text: string): string {
  return /^[A-Za-z0-9_/.,:=@%+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** An unquoted word the shell would expand as a filename pattern (`r?`, `*.ts`, `r[m]`). */
export function isGlob(w: ShellWord): boolean {
  return w.static && !w.quoted && /[*?]|\[[^\]]*\]/.test(w.text);
}

/** Does the filename pattern `glob` match `name`, as the shell would (`*`, `?`, `[...]`; `./` stays literal)? */
export function globMatches(glob: string, name: string): boolean {
  const source = glob.replace(/\[!?[^\]]*\]|[*?]|[^*?[]+|\[/g, (part) => {
    if (part === '*') return '.*';
    if (part === '?') return '.';
    if (part.length > 1 && part.startsWith('[')) return '[' + (part[1] === '!' ? '^' + part.slice(2, -1) : part.slice(1, -1)).replace(/\\/g, '\\\\') + ']';
    return part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  });
  try {
    return new RegExp(`^${source}$`, 's').test(name);
  } catch {
    return true; // a pattern we cannot read may match anything
  }
}

/** Bash brace expansion of an unquoted static word holding a comma list: `{rm,-rf,x}` -> rm, -rf, x. */
function expandWord(w: ShellWord): ShellWord[] {
  if (!w.static || w.quoted || !/\{[^{}]*,[^{}]*\}/.test(w.text)) return [w];
  const out = expandBraces(w.text, []);
  return out.length === 1 && out[0] === w.text ? [w] : out.map((text) => ({ text, static: true, quoted: false, raw: text }));
}

const MAX_BRACE_WORDS = 64;

function expandBraces(text: string, out: string[]): string[] {
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '{') continue;
    let depth = 0;
    const cuts = [i];
    for (let j = i; j < text.length; j++) {
      const c = text[j];
      if (c === '{') depth++;
      else if (c === ',' && depth === 1) cuts.push(j);
      else if (c === '}' && --depth === 0) {
        if (cuts.length === 1) break; // `{}` or `{x}`: no list here, look further on
        cuts.push(j);
        for (let k = 0; k + 1 < cuts.length && out.length < MAX_BRACE_WORDS; k++) {
          expandBraces(text.slice(0, i) + text.slice(cuts[k] + 1, cuts[k + 1]) + text.slice(j + 1), out);
        }
        return out;
      }
    }
  }
  // An empty alternative disappears, as in bash (`{,x}` is one word).
  if (text !== '' && out.length < MAX_BRACE_WORDS) out.push(text);
  return out;
}

/** `/usr/bin/git` -> `git`, `\rm` -> `rm` (static words arrive unquoted and unescaped). */
export function basename(text: string): string {
  const clean = text.replace(/\\/g, '');
  const slash = clean.lastIndexOf('/');
  return slash >= 0 && slash < clean.length - 1 ? clean.slice(slash + 1) : clean;
}

/** Strips assignments and plain wrappers, then reads the program, its subcommand and its forced-prompt reasons. */
export function describeSegment(segment: ShellSegment): CommandInfo {
  const info: CommandInfo = { segment, args: [], wrappers: [], assignments: [...segment.assignments], force: [], inline: [], code: [] };
  // Brace expansion happens before the command runs: `{rm,-rf,x}` is `rm -rf x`.
  const words = segment.words.flatMap(expandWord);
  let i = 0;

  const skipFlags = (valued: string[] = []) => {
    while (i < words.length) {
      const t = words[i].text;
      if (t === '--') {
        i++;
        return;
      }
      if (!t.startsWith('-') || t === '-') return;
      i += valued.includes(t) ? 2 : 1;
    }
  };

  while (i < words.length) {
    const w = words[i];
    // A glob (`/bin/r?`) is expanded by the shell: the program is only known when it runs.
    if (!w.static || isGlob(w)) {
      info.program = w.raw;
      info.dynamic = true;
      info.force.push(`the program name ${w.raw} is only known when the shell runs it`);
      info.args = words.slice(i + 1);
      break;
    }
    const name = basename(w.text);
    // The grammar reads `time { ls; }` as words; braces and `!` are syntax, the command follows them.
    if ((name === '{' || name === '}' || name === '!') && !w.quoted) {
      i++;
      continue;
    }
    if (name === 'env' && segment.kind === 'command') {
      info.wrappers.push('env');
      i++;
      let done = false;
      while (i < words.length && !done) {
        const t = words[i].text;
        if (t === '--') {
          i++;
          done = true;
        } else if (/^(-S|--split-string)/.test(t)) {
          info.force.push('env -S splits a string into a command');
          info.inline.push(words.slice(i + 1).map((x) => x.text).join(' ') || t.replace(/^(-S|--split-string=?)/, ''));
          i = words.length;
        } else if (t === '-u' || t === '--unset' || t === '-C' || t === '--chdir') i += 2;
        else if (t.startsWith('-')) i++;
        else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(t)) {
          const eq = t.indexOf('=');
          info.assignments.push({ name: t.slice(0, eq), value: { ...words[i], text: t.slice(eq + 1) } });
          i++;
        } else done = true;
      }
      continue;
    }
    if (name === 'command' || name === 'builtin') {
      const next = words[i + 1]?.text;
      if (name === 'command' && (next === '-v' || next === '-V')) {
        info.program = name;
        info.args = words.slice(i + 1);
        break;
      }
      info.wrappers.push(name);
      i++;
      skipFlags();
      continue;
    }
    if (name === 'coproc') {
      // `coproc cmd args`, or `coproc NAME { cmds; }`: the name is not the command.
      info.wrappers.push(name);
      i++;
      if (words[i + 1]?.text === '{' && !words[i + 1].quoted) i++;
      continue;
    }
    if (name === 'nohup' || name === 'time' || name === 'exec' || name === 'setsid') {
      info.wrappers.push(name);
      i++;
      skipFlags(name === 'exec' ? ['-a'] : name === 'time' ? ['-f', '-o', '--format', '--output'] : []);
      continue;
    }
    if (name === 'nice' || name === 'ionice') {
      info.wrappers.push(name);
      i++;
      skipFlags(['-n', '--adjustment', '-c', '--class', '-p']);
      continue;
    }
    if (name === 'timeout') {
      info.wrappers.push(name);
      i++;
      skipFlags(['-s', '--signal', '-k', '--kill-after']);
      if (i < words.length && /^[0-9.]+[smhd]?$/.test(words[i].text)) i++;
      continue;
    }
    if (name === 'stdbuf') {
      info.wrappers.push(name);
      i++;
      skipFlags(['-o', '-e', '-i']);
      continue;
    }
    if (name === 'sudo' || name === 'doas' || name === 'pkexec' || name === 'run0') {
      info.wrappers.push(name);
      i++;
      skipFlags(['-u', '-g', '-h', '-p', '-C', '-D', '-r', '-t', '-T', '-U', '--user', '--group', '--host', '--prompt', '--chdir']);
      continue;
    }
    if (name === 'xargs' || name === 'parallel') {
      info.wrappers.push(name);
      info.force.push(`${name} runs commands built from its input`);
      i++;
      skipFlags(['-I', '-i', '-n', '-P', '-L', '-l', '-d', '-E', '-e', '-s', '-a', '--arg-file', '--delimiter', '--max-args', '--max-procs', '--replace', '-j', '--jobs', '-S']);
      continue;
    }
    if (name === 'busybox' && i + 1 < words.length) {
      info.wrappers.push(name);
      i++;
      continue;
    }
    info.program = name;
    if (name !== w.text.replace(/\\/g, '')) info.path = w.text.replace(/\\/g, '');
    info.args = words.slice(i + 1);
    break;
  }

  for (const a of info.assignments) {
    // A bare assignment only reaches programs when the variable is already exported; one set for a
    // command (or exported) reaches that program, which may read it to find code or configuration.
    const forProgram = info.program !== undefined || segment.kind === 'declaration';
    if (isDangerousVar(a.name)) info.force.push(`the command sets ${a.name}, which changes what programs run or load`);
    else if (forProgram && !HARMLESS_VARS.test(a.name)) info.force.push(`the command sets ${a.name} for the program it runs, and a program may read it to find code or configuration`);
  }
  for (const r of segment.redirects) {
    const risk = redirectRisk(r);
    if (risk) info.force.push(risk);
  }
  if (info.program !== undefined && words.length) inspectProgram(info);
  keysOf(info);
  return info;
}

function inspectProgram(info: CommandInfo): void {
  const program = info.program!;
  const args = info.args;
  const texts = args.map((a) => a.text);
  const seg = info.segment;

  wordRisks(info);
  programRisks(info);
  if (RUNNERS.has(program)) {
    info.force.push(`${program} runs the command in its arguments`);
    // These run the command in their arguments (`flock lockfile rm -rf x`): the denylist reads every
    // suffix that starts with a plain word as the command it may be.
    for (let k = 0; k < args.length; k++) {
      if (args[k].static && !args[k].text.startsWith('-')) info.inline.push(shellJoin(args.slice(k)));
      // `script -c 'cmd'`, `flock lock -c 'cmd'`, `runuser -c 'cmd'`: the string is shell code.
      if (/^(-[A-Za-z]*c|--command)$/.test(args[k].text) && args[k + 1]) info.inline.push(args[k + 1].text);
    }
  }
  if (program === 'eval') {
    info.force.push('eval runs a string as shell code');
    info.inline.push(texts.join(' '));
  } else if (program === 'source' || program === '.') {
    info.force.push(`${program} runs a file as shell code inside this shell`);
    if (texts.some((t) => STDIN_NAMES.test(t))) info.inline.push(...(seg.stdin ?? []));
  } else if (program === 'trap' && args.length > 1) {
    info.force.push('trap runs a string as shell code later');
    info.inline.push(texts[0]);
  } else if (program === 'watch') {
    info.force.push('watch runs its arguments as a shell command');
    info.inline.push(texts.filter((t, k) => !t.startsWith('-') && !/^-[nd]$/.test(texts[k - 1] ?? '')).join(' '));
  } else if (program === 'su') {
    const c = texts.findIndex((t) => t === '-c' || t === '--command');
    if (c >= 0 && texts[c + 1] !== undefined) info.inline.push(texts[c + 1]);
  }

  // A pipe, a here-document or here-string, or `< file` on standard input.
  const readsStdin = (seg.pipeIndex ?? 0) > 0 || !!seg.heredoc || seg.redirects.some((r) => r.op === '<');
  if (SHELLS.has(program)) {
    const c = texts.findIndex((t) => /^-[A-Za-z]*c[A-Za-z]*$/.test(t) || t === '--command');
    if (c >= 0) {
      info.force.push(`${program} -c runs a string as shell code`);
      const code = args.slice(c + 1).find((a) => !a.text.startsWith('-'));
      if (code) info.inline.push(code.text);
    } else if (!texts.some((t) => !t.startsWith('-') && !STDIN_NAMES.test(t)) && readsStdin) {
      info.force.push(`${program} reads shell code from standard input`);
      info.inline.push(...(seg.stdin ?? []));
    } else if (texts.some((t) => /^-[A-Za-z]*s/.test(t)) && readsStdin) {
      info.force.push(`${program} -s reads shell code from standard input`);
      info.inline.push(...(seg.stdin ?? []));
    }
  }

  for (const [programRe, flagRe] of INLINE_FLAGS) {
    if (!programRe.test(program)) continue;
    const flags = texts.flatMap((t, k) => (flagRe.test(t) ? [k] : []));
    if (program === 'deno' && texts[0] === 'eval') flags.push(0);
    if (flags.length) info.force.push(`${program} runs code given on the command line`);
    // The code is a flag's attached value (`--eval=...`) or the next word; every flag-shaped word
    // counts (`ruby -rfileutils -e ...`), since the denylist would rather read too much.
    for (const k of flags) {
      const code = texts[k].includes('=') ? texts[k].slice(texts[k].indexOf('=') + 1) : texts[k + 1];
      if (code !== undefined) info.code.push(code);
    }
  }
  // A program read from standard input is code the parser can see when it comes from a here-document
  // or here-string; `python3 - <<EOF` is python3 running that text.
  if (INTERPRETERS.test(program) && !texts.some((t) => !t.startsWith('-') && !STDIN_NAMES.test(t)) && readsStdin) {
    info.force.push(`${program} reads code from standard input`);
    info.code.push(...(seg.stdin ?? []));
  }

  if ((program === 'fd' || program === 'fdfind') && texts.some((t) => /^(-x|-X|--exec|--exec-batch)$/.test(t))) {
    info.force.push(`${program} --exec runs a command on what it finds`);
  }

}

// Names that make a shell or interpreter read its program from standard input.
export const STDIN_NAMES = /^(-|\/dev\/stdin|\/dev\/fd\/0|\/proc\/self\/fd\/0)$/;

// Programs whose arguments are only printed: a value known at run time cannot change what they do.
const PRINTS_ONLY = new Set(['echo']);
// Programs with no option that runs code or writes a file: a glob may expand to option-like names.
const GLOB_SAFE = new Set(['ls', 'cat', 'wc', 'head', 'tail', 'echo', 'file', 'stat', 'du', 'grep', 'egrep', 'fgrep', 'diff', 'md5sum', 'sha1sum', 'sha256sum']);

/** Words not proven literal: their value (and, unquoted, their number) is only known when the shell runs. */
function wordRisks(info: CommandInfo): void {
  const program = info.program!;
  let operands = false;
  for (const a of info.args) {
    if (a.static && a.text === '--' && !a.quoted) operands = true;
    if (!a.static) {
      if (PRINTS_ONLY.has(program)) continue;
      info.force.push(`the argument ${a.raw} is only known when the shell runs it`);
      return;
    }
    // `*`, `?` and `[...]` at the start can match a file named like an option (`--checkpoint-action=...`).
    if (isGlob(a) && !operands && /^([*?]|\[)/.test(a.text) && !GLOB_SAFE.has(program)) {
      info.force.push(`the pattern ${a.raw} expands to file names, which can spell options for ${program}`);
      return;
    }
  }
}

function keysOf(info: CommandInfo): void {
  const program = info.program;
  if (program === undefined) {
    const first = info.assignments[0];
    if (first) info.key = `${TOOL}(${first.name}=:*)`;
    return;
  }
  if (!NO_SUBCOMMAND.has(program) && !info.dynamic) {
    const { sub, force } = subcommandOf(program, info.args);
    info.sub = sub;
    if (force) info.force.push(force);
  }
  // `./git` is whatever file sits there, not PATH's git: a rule for `git` never covers it.
  const name = info.path ?? program;
  const broad = `${TOOL}(${name}:*)`;
  if (info.sub) {
    info.key = `${TOOL}(${name} ${info.sub}:*)`;
    info.broaderKey = broad;
  } else info.key = broad;
}
