/**
 * Top-level definitions of a source file, by their names: the check that a model's rewrite did not
 * silently drop code ("truncation"). A definition is a line at column 0 that declares a function,
 * class, type, constant or the like in the common languages; methods and nested code are not
 * counted (a rewrite of a function may legitimately change its inside).
 */
const DEFINITION = new RegExp(
  [
    // TypeScript / JavaScript
    String.raw`^(?:export\s+(?:default\s+)?)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\*?|class|interface|type|enum|const|let|var|namespace|module)\s+([A-Za-z_$][\w$]*)`,
    // Python
    String.raw`^(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)`,
    // Rust
    String.raw`^(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:unsafe\s+)?(?:fn|struct|enum|trait|type|mod|const|static)\s+([A-Za-z_]\w*)`,
    // Go (functions and methods)
    String.raw`^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)`,
    String.raw`^type\s+([A-Za-z_]\w*)\s`,
  ].join('|'),
);

export function topLevelDefinitions(code: string): Set<string> {
  const names = new Set<string>();
  for (const line of code.split('\n')) {
    const m = DEFINITION.exec(line);
    const name = m?.slice(1).find(Boolean);
    if (name) names.add(name);
  }
  return names;
}

/** Names defined at the top of `original` that `merged` lacks, leaving out those the snippet mentions. */
export function droppedDefinitions(original: string, merged: string, snippet: string): string[] {
  const kept = topLevelDefinitions(merged);
  return [...topLevelDefinitions(original)].filter((name) => !kept.has(name) && !new RegExp(String.raw`(?<![\w$])${name.replace(/\$/g, '\\$')}(?![\w$])`).test(snippet));
}
