/**
 * Which expansions can run code, and bash's own decoding of `$'...'` words. Bash evaluates array
 * subscripts and arithmetic recursively: a variable holding `a[$(cmd)]` runs `cmd` when it is used in
 * `((x))`, `$((x))`, `let`, `${arr[$x]}`, `${!x}`, `${s:$x}` or `[[ $x -eq 1 ]]`; `${p@P}` expands a
 * prompt string, command substitutions included. The walker turns each of these into a note that
 * forces a fresh prompt; plain `$name`, `${name}`, `${#name}`, `${name[@]}` and pattern or default
 * operators only produce values.
 */

// `${name}`, `${#name}`, `${name[@]}`, `${name[3]}`, with a default, alternative, pattern or case
// operator. No `@` transformations, no `!` indirection, no `:offset`, no computed subscripts.
const VALUE_EXPANSION = /^\$\{#?(?:[A-Za-z_][A-Za-z0-9_]*(?:\[(?:[@*]|[0-9]+)\])?|[0-9]+|[@*#?$-])(?:(?::?[-+?]|##?|%%?|\/[/#%]?|\^\^?|,,?)[^}]*)?\}$/;

/** Why a `${...}` expansion can run code (or assign), or undefined when it only yields a value. */
export function expansionRisk(text: string): string | undefined {
  if (VALUE_EXPANSION.test(text)) return undefined;
  if (/@[A-Za-z]\}$/.test(text)) return `the command uses the parameter transformation ${text}, which can run code`;
  if (text.startsWith('${!')) return `the command uses the indirect expansion ${text}, which can evaluate code held in a variable`;
  if (/:=/.test(text)) return `the command assigns a variable inside an expansion (${text})`;
  return `the command uses the expansion ${text}, whose subscript or offset is evaluated as arithmetic and can run code`;
}

/** Arithmetic text that names a variable: its value is evaluated again, and can hold `a[$(cmd)]`. */
export function arithmeticNamesVariable(text: string): boolean {
  return /[A-Za-z_]/.test(text.replace(/\b0[xX][0-9a-fA-F]+\b|\b[0-9]+#[0-9A-Za-z@_]+\b/g, ''));
}

export const ARITHMETIC_NOTE = 'the command evaluates arithmetic over a variable, whose value can hold a subscript that runs code';

/** An array subscript that is not a literal number or `@`/`*`: bash evaluates it as arithmetic. */
export function computedSubscript(text: string): boolean {
  const m = /\[([^\]]*)\]/.exec(text);
  return !!m && !/^\s*(?:[0-9]+|[@*])\s*$/.test(m[1]);
}

/** Expansions and substitutions inside an unquoted here-document body (bash expands them when it reads it). */
export function heredocBodyRisks(body: string): string[] {
  const out: string[] = [];
  // `\`` and `\$(` are literal text in a body.
  if (/`|\$\(/.test(body.replace(/\\[\s\S]/g, ''))) out.push('the here-document body holds a command substitution, which runs when the shell reads it');
  if (/\$\[/.test(body)) out.push(ARITHMETIC_NOTE);
  for (const m of body.matchAll(/\$\{[^}]*\}/g)) {
    const risk = expansionRisk(m[0]);
    if (risk) out.push(risk);
  }
  return out;
}

/** Decodes the inside of `$'...'` exactly as bash does (unknown escapes keep their backslash). */
export function decodeAnsiC(s: string): string {
  const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '?': '?', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v' };
  return s.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs, (whole, e: string) => {
    if (e[0] === 'x' && e.length > 1) return String.fromCharCode(parseInt(e.slice(1), 16));
    if ((e[0] === 'u' || e[0] === 'U') && e.length > 1) {
      const code = parseInt(e.slice(1), 16);
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8) & 0xff);
    // `\cX` is control-X (`\c?` is DEL); bash masks the character with 0x1f.
    if (e[0] === 'c' && e.length === 2) return e[1] === '?' ? '\x7f' : String.fromCharCode(e[1].toUpperCase().charCodeAt(0) & 0x1f);
    return map[e] ?? whole;
  });
}
