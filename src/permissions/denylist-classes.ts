/**
 * The denylist's classes (issue 9 §3), each read the way the program reads its arguments: long
 * options by unambiguous prefix (`rm --rec`), every zero-permission chmod mode, recursive deletes by
 * programs other than rm, and raw disk paths however they are spelled (`/dev/./sda`, `/dev/sd?`,
 * `/dev/$d`, `/dev/disk/by-id/*`).
 */
import { describeSegment, globMatches, isGlob, type CommandInfo } from './shell-command.js';
import { hasShort, isLong, longName, optionsPart } from './shell-options.js';
import type { ShellRedirect, ShellWord } from './shell-parse.js';

export const RECURSIVE_DELETE = 'is a recursive delete; delete specific files instead (delete_file, or rm without -r on named files)';

/** rm's flags: `-r`/`-R` in a cluster, `--recursive` or `--no-preserve-root` by any unambiguous prefix. */
export function rmRecursive(texts: string[]): boolean {
  return optionsPart(texts).some(
    (t) => hasShort(t, 'r') || hasShort(t, 'R') || isLong(t, 'recursive') || isLong(t, 'no-preserve-root', ['n', 'no']) || t === '--no',
  );
}

/** chmod -R (any spelling) with a mode that leaves no permission for anyone. */
export function chmodZero(texts: string[]): boolean {
  const opts = optionsPart(texts);
  const recursive = opts.some((t) => isLong(t, 'recursive') || (/^-[cfvR]+$/.test(t) && t.includes('R')));
  if (!recursive) return false;
  // The mode is the first word that is not an option; chmod reads `-rwx` as a mode, not options.
  const afterDashes = texts.indexOf('--');
  const mode = texts.find((t, k) => (afterDashes >= 0 && k > afterDashes) || (!t.startsWith('--') && !/^-[cfvR]+$/.test(t)));
  return mode !== undefined && zeroMode(mode);
}

/** Does `mode` leave no read, write or execute bit for anyone, from any starting permissions? */
function zeroMode(mode: string): boolean {
  if (/^[0-7]+$/.test(mode)) return (parseInt(mode, 8) & 0o777) === 0;
  // Simulated from full permissions: if even 777 ends at zero, every file does.
  const perms = { u: 7, g: 7, o: 7 };
  for (const part of mode.split(',')) {
    const m = /^([ugoa]*)((?:[-+=][rwxXstugo]*)+)$/.exec(part);
    if (!m) return false;
    const who = (m[1] === '' || m[1].includes('a') ? 'ugo' : m[1]).split('') as Array<'u' | 'g' | 'o'>;
    for (const op of m[2].match(/[-+=][rwxXstugo]*/g) ?? []) {
      const letters = op.slice(1);
      let bits = 0;
      for (const c of letters) {
        if (c === 'r') bits |= 4;
        else if (c === 'w') bits |= 2;
        else if (c === 'x' || c === 'X') bits |= 1;
        else if (c === 'u' || c === 'g' || c === 'o') bits |= perms[c];
      }
      for (const w of who) perms[w] = op[0] === '+' ? perms[w] | bits : op[0] === '-' ? perms[w] & ~bits : bits;
    }
  }
  return perms.u === 0 && perms.g === 0 && perms.o === 0;
}

const DELETERS = new Set(['rm', 'rmdir', 'unlink', 'shred']);

/** Recursive deletes by programs other than rm: find -delete / -exec rm, rsync --delete, tar --remove-files, zip -m -r. */
export function otherRecursiveDelete(info: CommandInfo): string | undefined {
  const program = info.program;
  const texts = info.args.map((a) => a.text);
  if (program === 'find') {
    if (texts.includes('-delete')) return `(find -delete) ${RECURSIVE_DELETE}`;
    for (let k = 0; k < texts.length; k++) {
      if (!/^-(exec|execdir|ok|okdir)$/.test(texts[k])) continue;
      const deleter = runsDeleter(info, k + 1);
      if (deleter) return `(find ${texts[k]} ${deleter}) ${RECURSIVE_DELETE}`;
    }
  }
  if (program === 'fd' || program === 'fdfind') {
    for (let k = 0; k < texts.length; k++) {
      if (!/^(-x|-X|--exec|--exec-batch)$/.test(texts[k])) continue;
      const deleter = runsDeleter(info, k + 1);
      if (deleter) return `(${program} ${texts[k]} ${deleter}) ${RECURSIVE_DELETE}`;
    }
  }
  if (program === 'rsync') {
    const del = optionsPart(texts).find((t) => (longName(t) ?? '').startsWith('del') || (isLong(t, 'remove-source-files') && (longName(t) ?? '').length >= 3));
    if (del) return `(rsync ${del.split('=')[0]}) ${RECURSIVE_DELETE}`;
  }
  if (program === 'tar' || program === 'gtar' || program === 'bsdtar') {
    const del = optionsPart(texts).find((t) => isLong(t, 'remove-files', ['r', 're']));
    if (del) return `(tar ${del}) ${RECURSIVE_DELETE}`;
  }
  if (program === 'zip') {
    const opts = optionsPart(texts);
    const move = opts.some((t) => hasShort(t, 'm', 'bnOtxi') || isLong(t, 'move', ['m']));
    const recurse = opts.some((t) => hasShort(t, 'r', 'bnOtxi') || hasShort(t, 'R', 'bnOtxi') || isLong(t, 'recurse-paths', ['r', 're']) || isLong(t, 'recurse-patterns', ['r', 're']));
    if (move && recurse) return `(zip -m -r) ${RECURSIVE_DELETE}`;
  }
  return undefined;
}

/** The deleter (rm, unlink, shred ...) a command starting at `args[from]` runs once wrappers (`env`, `command`, `busybox`) are off. */
function runsDeleter(info: CommandInfo, from: number): string | undefined {
  const words = info.args.slice(from);
  const end = words.findIndex((w) => w.text === ';' || w.text === '+');
  const inner = describeSegment({ text: '', assignments: [], words: end < 0 ? words : words.slice(0, end), redirects: [], kind: 'command' });
  return inner.program && DELETERS.has(inner.program) ? inner.program : undefined;
}

/** `find ... | xargs rm`, `fd | parallel rm`: every file find lists is deleted. */
export function findIntoXargsDelete(pipeline: CommandInfo[]): string | undefined {
  const finder = pipeline.findIndex((i) => i.program === 'find' || i.program === 'fd' || i.program === 'fdfind');
  if (finder < 0) return undefined;
  const runner = (i: CommandInfo) => i.wrappers.find((w) => w === 'xargs' || w === 'parallel');
  const del = pipeline.slice(finder + 1).find((i) => runner(i) && i.program && DELETERS.has(i.program));
  return del ? `(${pipeline[finder].program} | ${runner(del)} ${del.program}) ${RECURSIVE_DELETE}` : undefined;
}

// Library calls that delete a folder tree, in the interpreters the policy knows.
const TREE_DELETE_CALLS: Array<[RegExp, string]> = [
  [/\b(rmtree|remove_tree)\s*\(|\bshutil\s*\.\s*rmtree\b/, 'rmtree'],
  [/\b(rmSync|rm|rmdir|rmdirSync)\s*\([^)]*\brecursive\s*:\s*(true|!0|1)\b/, 'fs.rm with recursive: true'],
  [/\brimraf(Sync)?\s*\(/, 'rimraf'],
  [/\bFileUtils\s*\.\s*(rm_rf|rm_r|remove_dir|remove_entry|remove_entry_secure|rmtree)\b/, 'FileUtils.rm_rf'],
  [/\bDeno\s*\.\s*remove(Sync)?\s*\([^)]*\brecursive\s*:\s*true\b/, 'Deno.remove with recursive: true'],
  [/\bRemove-Item\b[^\n]*\s-Recurse\b/i, 'Remove-Item -Recurse'],
  [/\bfile\s+delete\s+-force\b/, 'file delete -force'],
  [/\bunlink\s*\([^)]*\brecursive\s*=\s*(TRUE|T)\b/, 'unlink with recursive = TRUE'],
];
// Calls that run a string as a shell command (os.system, subprocess, child_process, backticks, qx, system).
const RUNS_COMMANDS = /\b(system|popen|exec[A-Za-z]*|spawn[A-Za-z]*|subprocess|check_output|check_call|Popen|child_process|call|run|shell_exec|passthru|proc_open|qx|IO\.popen|Open3|Command|Deno\.run)\b|`/;

/** A folder-tree delete in interpreter code the parser can see (`python3 -c`, `node -e`, a here-document). */
export function interpreterTreeDelete(code: string): string | undefined {
  const hit = TREE_DELETE_CALLS.find(([re]) => re.test(code));
  return hit ? `(${hit[1]}) ${RECURSIVE_DELETE}` : undefined;
}

/** The string literals of interpreter code that runs commands: each may be a command line for the denylist to read. */
export function interpreterCommandStrings(code: string): string[] {
  if (!RUNS_COMMANDS.test(code)) return [];
  const out: string[] = [];
  for (const m of code.matchAll(/"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`([^`]*)`/g)) out.push((m[1] ?? m[2] ?? m[3]).replace(/\\(.)/g, '$1'));
  // A list of words (`subprocess.run(["rm", "-rf", "x"])`) is one command too.
  for (const m of code.matchAll(/\[\s*((?:(?:"[^"\n]*"|'[^'\n]*')\s*,\s*)+(?:"[^"\n]*"|'[^'\n]*'))\s*,?\s*\]/g)) {
    out.push([...m[1].matchAll(/"([^"]*)"|'([^']*)'/g)].map((w) => w[1] ?? w[2]).join(' '));
  }
  return out;
}

const RAW_DISK = /^\/dev\/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|disk\d|rdisk\d|disk\/|mmcblk\d|dm-\d|md\d|mapper\/|block\/|loop\d|sr\d|nbd\d|zd\d|root$|mem$|kmem$|port$)/;
// Names a disk can have under /dev, to test globs and prefixes against.
const DISK_NAMES = ['sda', 'sdb1', 'hda', 'vda', 'xvda', 'nvme0n1', 'nvme0n1p1', 'mmcblk0', 'disk0', 'rdisk0', 'disk/by-id/x', 'disk/by-uuid/x', 'mapper/root', 'dm-0', 'md0', 'loop0', 'block/8:0', 'nbd0', 'root', 'mem'];

/** `/dev/./sda`, `/dev//sda`, `/dev/../dev/sda` -> `/dev/sda` (textually, as the kernel resolves them). */
function normalizePath(path: string): string {
  const abs = path.startsWith('/');
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return (abs ? '/' : '') + out.join('/') + (path.endsWith('/') && out.length ? '/' : '');
}

/** Does this word name a raw disk, statically or through a glob or a value only known at run time? */
export function namesRawDisk(word: ShellWord): string | undefined {
  if (word.static && !isGlob(word)) {
    const path = normalizePath(word.text);
    return RAW_DISK.test(path) ? path : undefined;
  }
  if (word.static) {
    const glob = normalizePath(word.text);
    return glob.startsWith('/dev/') && DISK_NAMES.some((n) => globMatches(glob, `/dev/${n}`)) ? word.text : undefined;
  }
  // What precedes the first expansion is fixed; the rest can be any disk name.
  const prefix = normalizePath(word.raw.split(/[$`]/)[0].replace(/["'\\]/g, ''));
  const dir = prefix.endsWith('/') || prefix === '/dev' ? prefix.replace(/\/?$/, '/') : prefix;
  if (!dir.startsWith('/dev/')) return undefined;
  const rest = dir.slice(5);
  return DISK_NAMES.some((n) => n.startsWith(rest) || isGlob({ ...word, text: rest, static: true, quoted: false })) ? word.raw : undefined;
}

/** A word after `of=` (dd) or a plain argument, as a ShellWord of its own. */
export function valueWord(word: ShellWord, prefix: string): ShellWord {
  return { ...word, text: word.text.slice(prefix.length), raw: word.raw.replace(prefix, '') };
}

/** bash's `/dev/tcp/host/port` and `/dev/udp/...` redirections open network connections. */
export function networkRedirect(r: ShellRedirect): string | undefined {
  const text = r.target.static ? normalizePath(r.target.text) : r.target.raw.replace(/["'\\]/g, '');
  return /^\/dev\/(tcp|udp)\//.test(text) ? text : undefined;
}
