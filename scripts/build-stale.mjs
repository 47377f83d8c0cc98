// Whether the build is older than its sources (issue 26: `npm start` rebuilt every time, 40 s on two
// cores, even before refusing a second start). The build is stale when dist/main.js is missing or
// any file it is made from (src/, the build scripts, native/, package.json, tsconfig*.json,
// package-lock.json) changed after it.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const INPUTS = ['src', 'native', 'scripts/bundle.mjs', 'scripts/build-native.mjs', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];

function newest(p) {
  let info;
  try {
    info = statSync(p);
  } catch {
    return 0;
  }
  if (!info.isDirectory()) return info.mtimeMs;
  let max = info.mtimeMs; // a deleted file changes its folder
  for (const name of readdirSync(p)) max = Math.max(max, newest(path.join(p, name)));
  return max;
}

/** Why `root` needs a build, or undefined when dist/ is newer than every input. */
export function staleBecause(root) {
  let built;
  try {
    built = statSync(path.join(root, 'dist', 'main.js')).mtimeMs;
  } catch {
    return 'there is no build yet';
  }
  for (const input of INPUTS) {
    if (newest(path.join(root, input)) > built) return `${input} changed since the last build`;
  }
  return undefined;
}
