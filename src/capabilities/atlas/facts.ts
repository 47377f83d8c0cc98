/**
 * What one source file says about itself, read from its tree-sitter tree with no model: the
 * modules it imports (as written), the names it defines at the top and which of them are public,
 * and the identifiers it uses (to weigh an import by how much of the other unit is used).
 * TypeScript/TSX, JavaScript, Python, Go and Rust (the grammars of capabilities/codeindex).
 */
import type { Node } from 'web-tree-sitter';
import { languageOfPath, sharedParserFor } from '../codeindex/grammars.js';

export interface FileFacts {
  path: string;
  language: string;
  lines: number;
  /** Module specifiers as written: './x.js', 'react', '..pkg.mod', 'crate::a::b', 'example.com/m/util'. */
  imports: string[];
  /** `mod x;` declarations (Rust): files this one pulls in. */
  mods: string[];
  /** Top-level definitions, and which are visible outside the file. */
  defines: string[];
  exports: string[];
  /** Identifiers used, once each. */
  uses: Set<string>;
  /** Whether the file looks like a program's entry (a main function, a bin, an `if __name__ == "__main__"`). */
  entry: boolean;
}

const text = (n: Node | null | undefined) => n?.text ?? '';
const unquote = (s: string) => s.replace(/^['"`]|['"`]$/g, '');
const kids = (n: Node) => n.namedChildren.filter((c): c is Node => c !== null);

export async function factsOf(file: string, source: string): Promise<FileFacts | undefined> {
  const language = languageOfPath(file);
  if (!language) return undefined;
  const parser = await sharedParserFor(language);
  if (!parser) return undefined;
  const tree = parser.parse(source);
  try {
    if (!tree) return undefined;
    const f: FileFacts = { path: file, language, lines: source.split('\n').length, imports: [], mods: [], defines: [], exports: [], uses: new Set(), entry: false };
    const root = tree.rootNode;
    if (language === 'python') python(root, f);
    else if (language === 'go') go(root, f);
    else if (language === 'rust') rust(root, f);
    else ecmascript(root, f);
    collectUses(root, f.uses);
    return f;
  } finally {
    tree?.delete();
  }
}

function collectUses(root: Node, uses: Set<string>): void {
  const stack: Node[] = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.childCount === 0) {
      if (/identifier$/.test(n.type) && n.text.length > 1) uses.add(n.text);
      continue;
    }
    for (const c of n.children) if (c) stack.push(c);
  }
}

function ecmascript(root: Node, f: FileFacts): void {
  const declName = (d: Node | null): string[] => {
    if (!d) return [];
    const name = d.childForFieldName('name');
    if (name) return [name.text];
    return kids(d).filter((c) => c.type === 'variable_declarator').map((c) => text(c.childForFieldName('name')));
  };
  for (const n of kids(root)) {
    if (n.type === 'import_statement') {
      const src = n.childForFieldName('source');
      if (src) f.imports.push(unquote(src.text));
    } else if (n.type === 'export_statement') {
      const src = n.childForFieldName('source');
      if (src) f.imports.push(unquote(src.text));
      const names = declName(n.childForFieldName('declaration'));
      f.defines.push(...names);
      f.exports.push(...names);
      for (const clause of kids(n).filter((c) => c.type === 'export_clause')) f.exports.push(...kids(clause).map((s) => text(s.childForFieldName('alias') ?? s.childForFieldName('name'))));
      if (/\bdefault\b/.test(n.text.slice(0, 20)) && !names.length) f.exports.push('default');
    } else if (/declaration$/.test(n.type)) {
      f.defines.push(...declName(n));
    }
  }
  // require('x') and import('x') anywhere in the file.
  const stack: Node[] = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === 'call_expression') {
      const fn = n.childForFieldName('function');
      const arg = n.childForFieldName('arguments')?.namedChildren[0];
      if ((fn?.text === 'require' || fn?.type === 'import') && arg?.type === 'string') f.imports.push(unquote(arg.text));
    }
    for (const c of n.namedChildren) if (c) stack.push(c);
  }
  f.entry = /(^|\/)(main|cli|server)\.[cm]?[jt]sx?$/.test(f.path) && !f.path.includes('/test');
}

function python(root: Node, f: FileFacts): void {
  for (const n of kids(root)) {
    if (n.type === 'import_statement') for (const name of kids(n)) f.imports.push(text(name.type === 'aliased_import' ? name.childForFieldName('name') : name));
    else if (n.type === 'import_from_statement') {
      const mod = text(n.childForFieldName('module_name'));
      // `from . import sib`: each name may be a module of the package.
      if (/^\.+$/.test(mod)) for (const name of kids(n).slice(1)) f.imports.push(mod + text(name.type === 'aliased_import' ? name.childForFieldName('name') : name));
      else f.imports.push(mod);
    } else {
      const def = n.type === 'decorated_definition' ? n.childForFieldName('definition') : n;
      const name = def && /definition$/.test(def.type) ? text(def.childForFieldName('name')) : '';
      if (name) {
        f.defines.push(name);
        if (!name.startsWith('_')) f.exports.push(name);
      } else if (n.type === 'expression_statement' && n.namedChildren[0]?.type === 'assignment') {
        const left = n.namedChildren[0].childForFieldName('left');
        if (left?.type === 'identifier') {
          f.defines.push(left.text);
          if (!left.text.startsWith('_')) f.exports.push(left.text);
        }
      } else if (n.type === 'if_statement' && /__name__\s*==\s*['"]__main__['"]/.test(text(n.childForFieldName('condition')))) f.entry = true;
    }
  }
  if (/(^|\/)__main__\.py$/.test(f.path)) f.entry = true;
}

function go(root: Node, f: FileFacts): void {
  const stack: Node[] = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === 'import_spec') f.imports.push(unquote(text(n.childForFieldName('path'))));
    else {
      for (const c of n.namedChildren) if (c && (c.type === 'import_declaration' || c.type === 'import_spec_list' || c.type === 'import_spec')) stack.push(c);
    }
  }
  for (const n of kids(root)) {
    const names = n.type === 'type_declaration' ? kids(n).map((s) => text(s.childForFieldName('name'))) : /^(function|method)_declaration$/.test(n.type) ? [text(n.childForFieldName('name'))] : [];
    for (const name of names.filter(Boolean)) {
      f.defines.push(name);
      if (/^[A-Z]/.test(name)) f.exports.push(name);
      if (name === 'main' && /^package main\b/m.test(root.text)) f.entry = true;
    }
  }
}

function rust(root: Node, f: FileFacts): void {
  for (const n of kids(root)) {
    if (n.type === 'use_declaration') f.imports.push(text(n.childForFieldName('argument')).replace(/::\{.*$/s, '').replace(/\s+/g, ''));
    else if (n.type === 'mod_item' && !n.childForFieldName('body')) f.mods.push(text(n.childForFieldName('name')));
    const name = text(n.childForFieldName('name'));
    if (name && /_item$/.test(n.type) && n.type !== 'use_declaration') {
      f.defines.push(name);
      if (kids(n).some((c) => c.type === 'visibility_modifier')) f.exports.push(name);
      if (name === 'main' && n.type === 'function_item') f.entry = true;
    }
  }
}
