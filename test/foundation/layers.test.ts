/**
 * The layers of docs/architecture.md ("Layers and imports"): kernel leans on nothing, and kernel,
 * tools, permissions, providers and agent never import a capability (they sit below them).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';

const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
const imports = (file: string) => [...readFileSync(file, 'utf8').matchAll(/^\s*(?:import|export)[^'"]*?from\s+'([^']+)'/gm)].map((m) => m[1]);

for (const layer of ['kernel', 'tools', 'permissions', 'providers', 'agent']) {
  it(`src/${layer} imports nothing from src/capabilities`, () => {
    const bad = files(path.join('src', layer)).flatMap((f) => imports(f).filter((i) => i.includes('/capabilities/')).map((i) => `${f}: ${i}`));
    assert.deepEqual(bad, []);
  });
}
