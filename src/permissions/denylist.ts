/**
 * The hard command denylist (seed 001 §4.2 item 5), beneath policy: no rule, mode or answer lifts it.
 * It reads the parsed segments (after unwrapping wrappers such as env, command, timeout, xargs and
 * sudo) and the code handed over as strings (`sh -c`, `eval`, `find -exec`), and stays robust when
 * the bash parse fails: the conservative lexer still splits the text, and a few text patterns catch
 * what only makes sense as a whole (fork bombs, a download piped into a shell).
 * The `command` workflow node uses the same function.
 */
import { describeSegment, globMatches, INTERPRETERS, isGlob, SHELLS, STDIN_NAMES, type CommandInfo } from './shell-command.js';
import {
  chmodZero,
  findIntoXargsDelete,
  interpreterCommandStrings,
  interpreterTreeDelete,
  namesRawDisk,
  networkRedirect,
  otherRecursiveDelete,
  RECURSIVE_DELETE,
  rmRecursive,
  valueWord,
} from './denylist-classes.js';
import { parseShellSync, type ShellParse } from './shell-parse.js';

const SUFFIX = 'It is on the engine\'s hard denylist, which no permission rule can lift; do not retry it or a variant of it. If it is truly needed, ask the user to run it themselves.';
const MAX_DEPTH = 4;

const SAFE_DEV = /^\/dev\/(null|zero|u?random|stdout|stderr|stdin|tty|fd\/\d+|pts\/\d+)$/;
const DOWNLOADERS = new Set(['curl', 'wget', 'fetch', 'aria2c', 'http', 'https', 'httpie', 'xh', 'lwp-request', 'GET']);
// Programs that write to, wipe or repartition a device named as an argument.
const RAW_WRITERS = new Set(['tee', 'cp', 'shred', 'blkdiscard', 'badblocks', 'fdisk', 'sfdisk', 'gdisk', 'sgdisk', 'cfdisk', 'parted', 'hdparm', 'pv', 'ddrescue', 'dcfldd']);
const POWER = new Set(['shutdown', 'reboot', 'halt', 'poweroff']);
const ESCALATE = new Set(['sudo', 'su', 'doas', 'pkexec', 'run0']);
const MKFS = /^(mkfs(\..+)?|mke2fs|mkswap|mkdosfs|mkntfs|mkexfatfs|newfs(_.+)?|wipefs)$/;
const DOWNLOAD_IN_TEXT = /(\$\(|`|<\()\s*(curl|wget|fetch|aria2c|http|https|xh|lwp-request|GET)\b/;
const PRINTERS = new Set(['echo', 'printf', 'cat']);

/** A sentence saying why `command` is refused outright, or undefined when the denylist has nothing against it. */
export function hardDenied(command: string): string | undefined {
  return deniedIn(parseShellSync(command), command, 0);
}

/** The same check over an existing parse (the shell policy parses once). */
export function hardDeniedParsed(parse: ShellParse, command: string): string | undefined {
  return deniedIn(parse, command, 0);
}

function deniedIn(parse: ShellParse, command: string, depth: number): string | undefined {
  const infos = parse.segments.map(describeSegment);
  for (const info of infos) {
    const reason = segmentDenied(info);
    if (reason) return `Refused: \`${clip(info.segment.text)}\` ${reason}. ${SUFFIX}`;
  }
  const pipe = pipedDownload(infos);
  if (pipe) return `Refused: ${pipe}. ${SUFFIX}`;
  for (const list of pipelines(infos)) {
    const del = findIntoXargsDelete(list);
    if (del) return `Refused: \`${clip(list.map((i) => i.segment.text).join(' | '))}\` ${del}. ${SUFFIX}`;
  }
  for (const fn of parse.functions) {
    const self = fn.calls.filter((c) => c.words[0]?.static && c.words[0].text === fn.name);
    // Recursion alone is fine; a function starting itself in a pipe or in the background is a bomb.
    if (self.some((c) => c.pipeline !== undefined) || (self.length > 0 && /(^|[^&])&([^&>]|$)/.test(fn.text))) {
      return `Refused: \`${clip(fn.text)}\` is a fork bomb (a function that keeps starting copies of itself). ${SUFFIX}`;
    }
  }
  if (parse.source === 'lexer') {
    const text = textPatterns(command);
    if (text) return `Refused: ${text}. ${SUFFIX}`;
  }
  const piped = pipedCode(infos);
  for (const { program, code } of piped) {
    const tree = INTERPRETERS.test(program) ? interpreterTreeDelete(code) : undefined;
    if (tree) return `Refused: \`${clip(code)}\` piped into ${program} ${tree}. ${SUFFIX}`;
  }
  if (depth < MAX_DEPTH) {
    for (const { program, code } of piped) {
      // A shell reads the text as commands; another interpreter may hand its strings to one.
      for (const text of SHELLS.has(program) ? [code] : interpreterCommandStrings(code)) {
        const inner = deniedIn(parseShellSync(text), text, depth + 1);
        if (inner) return inner;
      }
    }
    for (const info of infos) {
      for (const code of [...info.inline, ...info.code.flatMap(interpreterCommandStrings)]) {
        if (!code.trim()) continue;
        const inner = deniedIn(parseShellSync(code), code, depth + 1);
        if (inner) return inner;
      }
    }
  }
  return undefined;
}

// Programs the denylist judges by their arguments, and values a word known only at run time could
// take that would make them denied (`F=-rf; rm $F /`, `dd of=$DEV`, `chmod -R $MODE .`).
const ARG_JUDGED = new Set(['rm', 'chmod', 'dd', 'systemctl', 'loginctl', 'init', 'telinit']);
const RUNTIME_PROBES = ['-rf', 'rf', '-R', 'R', '000', '/dev/sda', 'reboot', '0'];

/**
 * Why a segment must be asked about afresh because an argument only known when the shell runs it
 * could turn it into a denied command, or undefined. Not a refusal: `rm "$f"` is usually a file.
 */
export function runtimeDenyRisk(info: CommandInfo): string | undefined {
  if (!info.program || !ARG_JUDGED.has(info.program) || segmentDenied(info)) return undefined;
  for (let k = 0; k < info.args.length; k++) {
    const arg = info.args[k];
    const glob = isGlob(arg);
    if (arg.static && !glob) continue;
    // What precedes the first expansion is fixed: `./$f` can never become a flag, `of=$DEV` can name a
    // disk. A glob becomes the names it matches (`rm *` with a file named `-rf` in the directory).
    const prefix = glob ? '' : arg.raw.split(/[$`]/)[0].replace(/["'\\]/g, '');
    for (const probe of RUNTIME_PROBES) {
      if (glob && !globMatches(arg.text, probe)) continue;
      const text = prefix + probe;
      const args = info.args.map((a, m) => (m === k ? { text, static: true, quoted: false, raw: text } : a));
      if (segmentDenied({ ...info, args })) {
        const hint = info.program === 'rm' ? ' (put `--` before file operands: rm -- "$f")' : '';
        return `\`${clip(info.segment.text)}\` has an argument only known when the shell runs it (${clip(arg.raw)}) that could make it a command the hard denylist refuses${hint}`;
      }
    }
  }
  return undefined;
}

function segmentDenied(info: CommandInfo): string | undefined {
  const escalation = info.wrappers.find((w) => ESCALATE.has(w)) ?? (info.program && ESCALATE.has(info.program) ? info.program : undefined);
  if (escalation) return `asks for elevated privileges (${escalation}); the engine never runs commands as another user`;
  const program = info.program;
  const texts = info.args.map((a) => a.text);

  for (const r of info.segment.redirects) {
    const net = networkRedirect(r);
    if (net) return `opens a network connection through bash's ${net}, the way downloaded code is run`;
    const disk = /^(\d*>|\d*>>|>\||&>|&>>|>&|<>)$/.test(r.op) ? namesRawDisk(r.target) : undefined;
    if (disk) return `writes straight to the raw disk ${disk}`;
  }
  if (!program) return undefined;

  if (program === 'rm' && rmRecursive(texts)) return RECURSIVE_DELETE;
  const otherDelete = otherRecursiveDelete(info);
  if (otherDelete) return otherDelete;
  if (MKFS.test(program)) return `makes or wipes a filesystem (${program})`;
  if (program === 'dd') {
    const of = info.args.find((a) => a.text.startsWith('of=') || a.raw.startsWith('of='));
    if (of && of.static && of.text.slice(3).startsWith('/dev/') && !SAFE_DEV.test(of.text.slice(3))) return `copies raw data onto the device ${of.text.slice(3)}`;
    const disk = of ? namesRawDisk(valueWord(of, 'of=')) : undefined;
    if (disk) return `copies raw data onto the device ${disk}`;
  }
  if (RAW_WRITERS.has(program) && info.args.some((a) => namesRawDisk(a))) {
    return `writes straight to a raw disk (${program})`;
  }
  if (POWER.has(program)) return `shuts down or restarts the machine (${program})`;
  if ((program === 'init' || program === 'telinit') && texts.some((t) => t === '0' || t === '6')) return `shuts down or restarts the machine (${program} ${texts[0]})`;
  if ((program === 'systemctl' || program === 'loginctl') && texts.some((t) => /^(poweroff|reboot|halt|kexec|soft-reboot)$/.test(t))) {
    return `shuts down or restarts the machine (${program})`;
  }
  if (program === 'chmod' && chmodZero(texts)) return 'removes every permission recursively (chmod -R 000)';
  for (const code of info.code) {
    const tree = interpreterTreeDelete(code);
    if (tree) return tree;
  }
  if (SHELLS.has(program) || INTERPRETERS.test(program) || program === 'source' || program === '.' || program === 'eval') {
    const fromDownload = info.args.some((a) => DOWNLOAD_IN_TEXT.test(a.raw)) || info.segment.redirects.some((r) => /^(<|<<<)$/.test(r.op) && DOWNLOAD_IN_TEXT.test(r.target.raw));
    if (fromDownload) return SHELLS.has(program) || program === 'source' || program === '.' || program === 'eval' ? 'runs a downloaded script as shell code' : 'runs a downloaded script in an interpreter';
  }
  return undefined;
}

/** `curl ... | sh`: a download earlier in a pipeline, a shell (or an interpreter reading stdin) later. */
function pipedDownload(infos: CommandInfo[]): string | undefined {
  for (const list of pipelines(infos)) {
    const first = list.findIndex((i) => i.program && DOWNLOADERS.has(i.program));
    if (first < 0) continue;
    for (const later of list.slice(first + 1)) {
      const p = later.program ?? '';
      const positional = later.args.some((a) => !a.text.startsWith('-') && !STDIN_NAMES.test(a.text));
      const inline = later.args.some((a) => /^-[A-Za-z]*[cem][A-Za-z]*$/.test(a.text));
      if (SHELLS.has(p) && !later.args.some((a) => /^-[A-Za-z]*c/.test(a.text))) return `\`${clip(list[first].segment.text)} | ${p}\` pipes a download into a shell`;
      if (INTERPRETERS.test(p) && !positional && !inline) return `\`${clip(list[first].segment.text)} | ${p}\` pipes a download into an interpreter`;
    }
  }
  return undefined;
}

/** The segments of each pipeline, in order. */
function pipelines(infos: CommandInfo[]): CommandInfo[][] {
  const byPipe = new Map<number, CommandInfo[]>();
  for (const info of infos) {
    if (info.segment.pipeline === undefined) continue;
    const list = byPipe.get(info.segment.pipeline) ?? [];
    list.push(info);
    byPipe.set(info.segment.pipeline, list);
  }
  return [...byPipe.values()].map((list) => list.sort((a, b) => (a.segment.pipeIndex ?? 0) - (b.segment.pipeIndex ?? 0)));
}

/**
 * `echo 'cmd' | sh`, `printf 'cmd' | bash -s`, `cat <<EOF | python3`: the text a shell or an
 * interpreter reads from the pipe (with no script named) is its program.
 */
function pipedCode(infos: CommandInfo[]): Array<{ program: string; code: string }> {
  const out: Array<{ program: string; code: string }> = [];
  for (const list of pipelines(infos)) {
    for (const [k, reader] of list.entries()) {
      const program = reader.program ?? '';
      if (k === 0 || !(SHELLS.has(program) || INTERPRETERS.test(program))) continue;
      if (reader.args.some((a) => /^-[A-Za-z]*c/.test(a.text))) continue;
      // `python3 script.py` runs the script; a shell's later words may be `-s` arguments, so it stays read.
      if (!SHELLS.has(program) && reader.args.some((a) => !a.text.startsWith('-') && !STDIN_NAMES.test(a.text))) continue;
      for (const writer of list.slice(0, k)) {
        if (!writer.program || !PRINTERS.has(writer.program)) continue;
        const words = writer.args.filter((a) => !/^-[neE]+$/.test(a.text)).map((a) => a.text);
        if (writer.program === 'cat') out.push(...(writer.segment.stdin ?? []).map((code) => ({ program, code })));
        else out.push({ program, code: (writer.program === 'printf' ? words.map((w) => w.replace(/\\n/g, '\n')) : words).join(writer.program === 'printf' ? '' : ' ') });
      }
    }
  }
  return out;
}

/** Whole-text patterns for when the parse failed. */
function textPatterns(command: string): string | undefined {
  if (/(?:^|[\s;&|])(?:function\s+)?([A-Za-z_:.][\w:.-]*)\s*\(\s*\)\s*\{[^}]*\1\s*\|\s*\1/.test(command) || /function\s+([\w:.-]+)\s*\{[^}]*\1\s*\|\s*\1/.test(command)) {
    return 'the command contains a fork bomb';
  }
  if (/\b(curl|wget|fetch)\b[^;&\n]*\|\s*(sudo\s+)?(env\s+)?(\/\S*\/)?(ba|z|da|k|mk|fi|tc|c|y)?sh\b/.test(command)) return 'the command pipes a download into a shell';
  if (/\b(ba|z|da|k)?sh\s+<\(\s*(curl|wget)\b/.test(command)) return 'the command runs a downloaded script as shell code';
  return undefined;
}

function clip(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > 120 ? one.slice(0, 119) + '…' : one;
}
