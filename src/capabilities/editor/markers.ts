/**
 * "Lazy" snippet markers: the lines a model or a person writes in place of unchanged code, such as
 * `// ... existing code ...`, `# ... rest of the file ...`, `<!-- ... -->` or a bare `...`.
 * A marker is a comment (in any common style) whose text starts with an ellipsis, or a line that is
 * only an ellipsis. Code that merely contains `...` (a spread `...args`, a Python stub body after a
 * colon) is not a marker, because the ellipsis must be the whole content of a comment or a line.
 */

// Comment leaders and closers of the languages people edit: C-family, shell/Python/Ruby/YAML,
// SQL/Lua/Haskell, Lisp/INI, HTML/XML, CSS and block comments, and `REM`-less Windows batch `::`.
const LEADER = String.raw`(?:\/\/+|#+|--+|;+|%+|::|\/\*+|<!--|\{\/\*|\(\*)`;
const CLOSER = String.raw`(?:\*+\/\}?|-->|\*\))?`;
// The one-character ellipsis as an escape the RegExp reads: a raw `…` in a String.raw would make the
// whole bundle's source two bytes a character in memory (V8 keeps it for the life of the process).
const ELLIPSIS = String.raw`(?:\.\.\.|\u2026)`;
// After the ellipsis: optional words ("existing code", "rest of the function", "unchanged") and
// an optional closing ellipsis. Words are limited to letters, spaces and a few marks so a line of
// real code after a comment leader (`# ...args` is not written in practice) is not swallowed.
const WORDS = String.raw`(?:[\sA-Za-z0-9_'",:()\-/.]*?)`;
const MARKER = new RegExp(String.raw`^\s*(?:${LEADER}\s*${ELLIPSIS}${WORDS}(?:${ELLIPSIS})?\s*${CLOSER}|${ELLIPSIS})\s*$`);

export function isMarkerLine(line: string): boolean {
  return MARKER.test(line);
}
