/**
 * How a person types the engine command right now (issue 26): `engine ...` when an `engine` on the
 * PATH is this very CLI (npm link, a global install), else `npx engine ...` (run inside the engine's
 * folder after `npm install`, where a bare `engine` is "command not found"). Every sentence that
 * tells a person what to type uses it, so the advice works where it is read.
 */
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';

let onPath: boolean | undefined;

/** The folder holding the package.json above `file` (this engine's install). */
function packageRoot(file: string): string | undefined {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

function engineOnPath(): boolean {
  if (onPath !== undefined) return onPath;
  const self = process.argv[1] && safeRealpath(process.argv[1]);
  const root = self ? packageRoot(self) : undefined;
  onPath = false;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const found = dir ? safeRealpath(path.join(dir, 'engine')) : undefined;
    if (found && root && found === path.join(root, 'bin', 'engine.js')) return (onPath = true);
  }
  return onPath;
}

function safeRealpath(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

/** `engine <args>` or `npx engine <args>`, whichever works from here. */
export function engineCommand(args: string): string {
  return `${engineOnPath() ? 'engine' : 'npx engine'} ${args}`;
}
