/**
 * The project's own typechecker over one root. Today the known checker is TypeScript: a root with a
 * tsconfig.json is checked with `tsc --noEmit -p <root>`, using the root's own compiler when it has
 * one (its version, its settings) and the engine's bundled TypeScript otherwise. Any other root is
 * answered plainly: no known checker.
 */
import { execFile } from 'node:child_process';
import { access } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { LIMITS } from '../../kernel/limits.js';
import type { SandboxLaunch } from '../../sandbox/types.js';
import type { FenceRoot } from './types.js';

export interface Diagnostic {
  severity: 'error' | 'warning' | 'info';
  /** Virtual path (workspace-relative, or `<mount>/<path>`). */
  file: string;
  line: number;
  col: number;
  message: string;
  /** The checker's code, e.g. TS2322. */
  code?: string;
}

export interface DiagnosticsReport {
  root: string;
  /** `tsc` (with where it came from), or null when the root has no known checker. */
  checker: string | null;
  /** At most LIMITS.diagnostics items. */
  diagnostics: Diagnostic[];
  total: number;
  /** How many were left out past the cap. */
  omitted: number;
  /** One sentence: clean, counts, or why nothing was checked. */
  summary: string;
}

const require = createRequire(import.meta.url);

export async function runDiagnostics(
  root: FenceRoot,
  options: { signal?: AbortSignal; env?: Record<string, string>; sandbox?: (root: FenceRoot) => Promise<{ launch?: SandboxLaunch; env: Record<string, string> }> } = {},
): Promise<DiagnosticsReport> {
  const base = { root: root.name, diagnostics: [], total: 0, omitted: 0 };
  if (!(await exists(path.join(root.path, 'tsconfig.json')))) {
    return {
      ...base,
      checker: null,
      summary: `No known checker for root "${root.name}": it has no tsconfig.json (TypeScript is the checker the engine knows). Run the project's own checks with run_shell instead.`,
    };
  }
  const own = path.join(root.path, 'node_modules', '.bin', 'tsc');
  const useOwn = await exists(own);
  const file = useOwn ? own : process.execPath;
  const args = [...(useOwn ? [] : [require.resolve('typescript/bin/tsc')]), '--noEmit', '--pretty', 'false', '-p', root.path];
  const checker = useOwn ? "tsc (the root's node_modules)" : 'tsc (bundled with the engine)';
  // The root's own tsc is code a model may have written: it starts in the sandbox like run_shell.
  const prepared = await options.sandbox?.(root);
  const launch = prepared?.launch;
  const [program, argv] = launch ? [launch.program, [...launch.prefix, file, ...args]] : [file, args];
  const env = options.env ? { ...options.env, ...prepared?.env } : undefined;

  const { stdout, stderr, failure } = await new Promise<{ stdout: string; stderr: string; failure?: string }>((resolve) => {
    execFile(
      program,
      argv,
      { cwd: root.path, env, signal: options.signal, timeout: LIMITS.diagnosticsTimeoutMs, maxBuffer: LIMITS.diagnosticsOutputBytes, killSignal: 'SIGKILL' },
      (err, stdout, stderr) => {
        // tsc exits 1 or 2 when it found problems; only a kill or a failed start is a failure.
        const e = err as (NodeJS.ErrnoException & { killed?: boolean; signal?: string }) | null;
        let failure: string | undefined;
        if (e && (e.killed || e.signal || typeof e.code === 'string')) {
          failure = e.name === 'AbortError' ? 'stopped' : e.killed || e.signal ? `tsc did not finish within ${LIMITS.diagnosticsTimeoutMs / 1000} s` : `tsc could not start (${e.code})`;
        }
        resolve({ stdout: String(stdout), stderr: String(stderr), failure });
      },
    );
  });
  if (failure) return { ...base, checker, summary: `Diagnostics for root "${root.name}" failed: ${failure}.` };

  const all = parseTsc(stdout + '\n' + stderr, root);
  if (all.length === 0 && /error/i.test(stderr) && !stdout.trim()) {
    return { ...base, checker, summary: `tsc failed on root "${root.name}": ${stderr.trim().slice(0, 500)}` };
  }
  const diagnostics = all.slice(0, LIMITS.diagnostics);
  const errors = all.filter((d) => d.severity === 'error').length;
  const warnings = all.length - errors;
  const summary =
    all.length === 0
      ? `Clean: ${checker} found no problems in root "${root.name}".`
      : `${checker} found ${errors} error${errors === 1 ? '' : 's'}${warnings ? ` and ${warnings} other diagnostic${warnings === 1 ? '' : 's'}` : ''} in root "${root.name}"` +
        (all.length > diagnostics.length ? `; showing the first ${diagnostics.length}, ${all.length - diagnostics.length} more not shown.` : '.');
  return { root: root.name, checker, diagnostics, total: all.length, omitted: all.length - diagnostics.length, summary };
}

/** `src/a.ts(3,7): error TS2322: message` (+ indented continuation lines), or a global `error TS5058: message`. */
export function parseTsc(output: string, root: FenceRoot): Diagnostic[] {
  const out: Diagnostic[] = [];
  const located = /^(.+?)\((\d+),(\d+)\): (error|warning|message) (TS\d+): (.*)$/;
  const global = /^(error|warning|message) (TS\d+): (.*)$/;
  for (const raw of output.split(/\r?\n/)) {
    const line = raw.replace(/\s+$/, '');
    if (!line) continue;
    let m = located.exec(line);
    if (m) {
      out.push({ severity: severityOf(m[4]), file: virtualOf(m[1], root), line: Number(m[2]), col: Number(m[3]), code: m[5], message: m[6] });
      continue;
    }
    m = global.exec(line);
    if (m) {
      out.push({ severity: severityOf(m[1]), file: virtualOf('tsconfig.json', root), line: 1, col: 1, code: m[2], message: m[3] });
      continue;
    }
    // A continuation of the previous message chain.
    if (/^\s/.test(raw) && out.length) out[out.length - 1].message += ' ' + line.trim();
  }
  return out;
}

/** `severity file:line:col - message` lines, the rest counted. */
export function formatDiagnostics(report: DiagnosticsReport): string {
  if (report.diagnostics.length === 0) return report.summary;
  const lines = report.diagnostics.map((d) => `${d.severity} ${d.file}:${d.line}:${d.col} - ${d.message}${d.code ? ` (${d.code})` : ''}`);
  if (report.omitted > 0) lines.push(`... and ${report.omitted} more diagnostic${report.omitted === 1 ? '' : 's'} not shown (cap ${LIMITS.diagnostics}).`);
  return [report.summary, ...lines].join('\n');
}

function severityOf(word: string): Diagnostic['severity'] {
  return word === 'error' ? 'error' : word === 'warning' ? 'warning' : 'info';
}

/** tsc prints paths relative to its cwd (the root) or absolute; either becomes a virtual path. */
function virtualOf(file: string, root: FenceRoot): string {
  const abs = path.resolve(root.path, file);
  const rel = path.relative(root.path, abs).split(path.sep).join('/');
  const inside = rel && !rel.startsWith('..') && !path.isAbsolute(rel);
  const shown = inside ? rel : file;
  return root.kind === 'workspace' ? shown : `${root.name}/${shown}`;
}

async function exists(p: string): Promise<boolean> {
  try {
    await access(p);
    return true;
  } catch {
    return false;
  }
}

/** True when checking this root would run a compiler from inside the root (workspace code, not the engine's). */
export async function usesOwnChecker(root: FenceRoot): Promise<boolean> {
  return (await exists(path.join(root.path, 'tsconfig.json'))) && (await exists(path.join(root.path, 'node_modules', '.bin', 'tsc')));
}
