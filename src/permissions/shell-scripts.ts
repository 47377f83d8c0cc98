/**
 * The small script languages programs take on the command line: a sed reader that finds the
 * commands running a program (`e`, `s///e`) or writing a file (`w`, `W`, `s///w`), failing closed on
 * anything it cannot read, and the awk constructs that run commands or write files.
 */
import type { CommandInfo } from './shell-command.js';
import { hasShort, isLong, longValue, optionsPart, shortValue } from './shell-options.js';

// sed commands that take the rest of the line as text, a label or a file name.
const SED_LINE = 'aic:btTrRwWe';

/** What in a sed script runs a command or writes a file; `undefined` when nothing does. */
function sedScriptRisk(script: string, inline: string[]): string | undefined {
  let i = 0;
  const s = script;
  const skipDelimited = (delim: string) => {
    while (i < s.length && s[i] !== delim) i += s[i] === '\\' ? 2 : 1;
    i++;
  };
  while (i < s.length) {
    const c = s[i];
    if (/[\s;{}!]/.test(c)) {
      i++;
      continue;
    }
    if (c === '#') {
      while (i < s.length && s[i] !== '\n') i++;
      continue;
    }
    // Addresses: numbers, $, /re/, \cREc, first~step, +N, ~N, commas.
    if (/[0-9$,~+]/.test(c)) {
      i++;
      continue;
    }
    if (c === '/' || c === '\\') {
      const delim = c === '\\' ? s[++i] : '/';
      i++;
      skipDelimited(delim);
      while (/[IM]/.test(s[i] ?? '')) i++;
      continue;
    }
    if (c === 's' || c === 'y') {
      const delim = s[i + 1];
      if (!delim || delim === '\n' || delim === '\\') return 'sed reads a script it cannot check';
      i += 2;
      skipDelimited(delim);
      skipDelimited(delim);
      if (c === 'y') continue;
      const start = i;
      while (i < s.length && !/[;\n}]/.test(s[i])) {
        if (s[i] === 'w') return `sed s///w writes to a file (${s.slice(i + 1).split('\n')[0].trim()})`;
        i++;
      }
      if (s.slice(start, i).includes('e')) return 'sed s///e runs the pattern space as a command';
      continue;
    }
    if (SED_LINE.includes(c)) {
      const end = s.indexOf('\n', i);
      const arg = s.slice(i + 1, end < 0 ? s.length : end).trim();
      if (c === 'e') {
        if (arg) inline.push(arg);
        return 'sed e runs a command';
      }
      if (c === 'w' || c === 'W') return `sed ${c} writes to a file (${arg})`;
      // a, i, c take text to the end of the line; labels and r/R file names end at `;` in GNU sed only for labels.
      i = end < 0 ? s.length : end;
      continue;
    }
    if (/[=dDgGhHlnNpPqQxzFv]/.test(c)) {
      i++;
      continue;
    }
    return 'sed reads a script it cannot check';
  }
  return undefined;
}

export function sed(info: CommandInfo, w: string[]): void {
  const opts = optionsPart(w);
  if (opts.includes('--sandbox')) return;
  const scripts: string[] = [];
  let positionalScript = true;
  for (let k = 0; k < opts.length; k++) {
    const t = opts[k];
    if (t === '-e' || isLong(t, 'expression', ['e', 'ex'])) {
      const v = t.includes('=') ? longValue(opts, k) : opts[++k];
      if (v !== undefined) scripts.push(v);
      positionalScript = false;
    } else if (hasShort(t, 'e', 'fl')) {
      const v = shortValue(opts, k, 'e');
      if (v === opts[k + 1]) k++;
      if (v !== undefined) scripts.push(v);
      positionalScript = false;
    } else if (hasShort(t, 'f', 'el') || isLong(t, 'file', ['f'])) {
      info.force.push('sed -f runs a script from a file');
      positionalScript = false;
    } else if (hasShort(t, 'i', 'efl') || isLong(t, 'in-place', ['i', 'in'])) {
      info.force.push('sed -i rewrites files in place');
    } else if (t === '-l' || t === '--line-length') k++;
    else if (!t.startsWith('-') && positionalScript) {
      scripts.push(t);
      positionalScript = false;
    }
  }
  for (const script of scripts) {
    const risk = sedScriptRisk(script, info.inline);
    if (risk) info.force.push(risk);
  }
}

export function awk(info: CommandInfo, w: string[]): void {
  const name = info.program!;
  let program: string | undefined;
  for (let k = 0; k < w.length; k++) {
    const t = w[k];
    if (t === '--') {
      program ??= w[k + 1];
      break;
    }
    if (t === '-F' || t === '-v' || t === '--assign' || t === '--field-separator') k++;
    else if (/^-(f|E|i|l)$/.test(t) || /^--(file|exec|include|load)\b/.test(t) || /^-[fEil]./.test(t)) {
      info.force.push(`${name} ${t.slice(0, 2)} runs a program from a file or loads an extension`);
      program = '';
    } else if (t.startsWith('-')) continue;
    else {
      program ??= t;
      break;
    }
  }
  if (!program) return;
  if (/\bsystem\s*\(|\|&?|\bgetline\b|@load|(print|printf)\b[^;}]*>/.test(program)) {
    info.force.push(`${name} runs commands or writes files from its program (system, pipes, getline or >)`);
    // Every string literal, and every -v value, may be a command line: hand them all to the denylist.
    for (const m of program.matchAll(/"((?:[^"\\]|\\.)*)"/g)) info.inline.push(m[1].replace(/\\(.)/g, '$1'));
    w.forEach((t, k) => (w[k - 1] === '-v' || w[k - 1] === '--assign') && t.includes('=') && info.inline.push(t.slice(t.indexOf('=') + 1)));
  }
}
