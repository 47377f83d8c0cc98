/**
 * An import as written -> the file it names inside the scope, or the external package it names.
 * Only what the languages' own rules say, never a guess: relative ECMAScript specifiers with
 * TypeScript's extension mapping, Python's relative and package-absolute modules, Go import paths
 * under the scope's module path (go.mod), Rust `crate::`/`super::`/`self::` paths and `mod x;`.
 * Paths are scope-relative and `/`-separated.
 */
import path from 'node:path/posix';

export type Resolved = { file: string } | { external: string } | undefined;

export interface ResolveContext {
  files: ReadonlySet<string>;
  /** Go: every go.mod of the scope, as the folder it sits in and the module path it declares. */
  goModules?: Array<{ dir: string; module: string }>;
}

const JS_EXTS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];

export function resolveImport(from: string, spec: string, language: string, ctx: ResolveContext): Resolved {
  if (language === 'python') return python(from, spec, ctx);
  if (language === 'go') return go(spec, ctx);
  if (language === 'rust') return rust(from, spec, ctx);
  return ecmascript(from, spec, ctx);
}

function first(ctx: ResolveContext, candidates: string[]): Resolved {
  const hit = candidates.map((c) => path.normalize(c)).find((c) => !c.startsWith('..') && ctx.files.has(c));
  return hit ? { file: hit } : undefined;
}

function ecmascript(from: string, spec: string, ctx: ResolveContext): Resolved {
  if (!spec.startsWith('.')) {
    if (spec.startsWith('node:') || !spec) return { external: spec.replace(/^node:/, 'node:') };
    const parts = spec.split('/');
    return { external: spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0] };
  }
  const base = path.join(path.dirname(from), spec);
  const stem = base.replace(/\.(m|c)?jsx?$/, '');
  return first(ctx, [base, ...JS_EXTS.map((e) => stem + e), ...JS_EXTS.map((e) => path.join(base, 'index' + e))]) ?? { external: `(unresolved) ${spec}` };
}

function python(from: string, spec: string, ctx: ResolveContext): Resolved {
  const dots = /^\.*/.exec(spec)![0].length;
  const rest = spec.slice(dots).split('.').filter(Boolean);
  const tryModule = (dir: string) => first(ctx, [path.join(dir, ...rest) + '.py', path.join(dir, ...rest, '__init__.py')]);
  if (dots) {
    let dir = path.dirname(from);
    for (let i = 1; i < dots; i++) dir = path.dirname(dir);
    return tryModule(dir) ?? { external: `(unresolved) ${spec}` };
  }
  // Absolute: on the path Python searches, the running script's folder first, then the folders
  // above it up to the scope's root, then src/ (the common layout).
  for (let dir = path.dirname(from); ; dir = path.dirname(dir)) {
    const hit = tryModule(dir);
    if (hit) return hit;
    if (dir === '.' || dir === '/' || dir === '') break;
  }
  return tryModule('src') ?? { external: rest[0] };
}

function go(spec: string, ctx: ResolveContext): Resolved {
  const mod = ctx.goModules?.find((m) => spec === m.module || spec.startsWith(m.module + '/'));
  if (mod) {
    const dir = path.join(mod.dir, spec.slice(mod.module.length + 1));
    const file = [...ctx.files].find((f) => path.dirname(f) === dir && f.endsWith('.go') && !f.endsWith('_test.go'));
    return file ? { file } : { external: `(unresolved) ${spec}` };
  }
  return { external: spec };
}

/** The folder a Rust file's child modules live in: its own folder for lib.rs/main.rs/mod.rs, else a folder named after it. */
function rustModuleDir(file: string): string {
  const name = path.basename(file);
  return /^(lib|main|mod)\.rs$/.test(name) ? path.dirname(file) : path.join(path.dirname(file), name.replace(/\.rs$/, ''));
}

function rustCrateRoot(from: string, ctx: ResolveContext): string {
  for (let dir = path.dirname(from); ; dir = path.dirname(dir)) {
    if (ctx.files.has(path.join(dir, 'lib.rs')) || ctx.files.has(path.join(dir, 'main.rs'))) return dir;
    if (dir === '.' || dir === '/') return 'src';
  }
}

function rust(from: string, spec: string, ctx: ResolveContext): Resolved {
  if (spec.startsWith('mod:')) {
    const dir = rustModuleDir(from);
    const name = spec.slice(4);
    return first(ctx, [path.join(dir, name + '.rs'), path.join(dir, name, 'mod.rs')]);
  }
  const parts = spec.split('::').filter(Boolean);
  let dir: string;
  if (parts[0] === 'crate') dir = rustCrateRoot(from, ctx);
  else if (parts[0] === 'self') dir = rustModuleDir(from);
  else if (parts[0] === 'super') dir = path.dirname(rustModuleDir(from));
  else return parts[0] === 'std' || parts[0] === 'core' || parts[0] === 'alloc' ? { external: parts[0] } : { external: parts[0] };
  const rest = parts.slice(1);
  // The longest module path that is a file: crate::a::b::Item may name a/b.rs or a.rs.
  for (let n = rest.length; n > 0; n--) {
    const hit = first(ctx, [path.join(dir, ...rest.slice(0, n)) + '.rs', path.join(dir, ...rest.slice(0, n), 'mod.rs')]);
    if (hit) return hit;
  }
  return { external: `(unresolved) ${spec}` };
}
