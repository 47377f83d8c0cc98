/**
 * A repository a sandboxed command created is not protected during that command (its mounts were
 * fixed when it started), so the engine looks at it afterwards: any hook, and any config key that
 * names a program git would run later, is reported to the caller and on the bus, so a person sees
 * it before running git there (docs/security.md, "Sandbox").
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';

// Keys (lower case, `<section>.<key>` with any subsection removed) whose value is a program or
// pulls in other config.
const PROGRAM_KEYS = new Set([
  'core.fsmonitor',
  'core.hookspath',
  'core.sshcommand',
  'core.pager',
  'core.editor',
  'core.askpass',
  'core.gitproxy',
  'sequence.editor',
  'diff.external',
  'diff.command',
  'diff.textconv',
  'merge.driver',
  'filter.clean',
  'filter.smudge',
  'filter.process',
  'credential.helper',
  'gpg.program',
  'uploadpack.packobjectshook',
  'include.path',
  'includeif.path',
  'web.browser',
  'browser.cmd',
  'browser.path',
  'man.cmd',
  'man.path',
]);

/**
 * `config: core.fsmonitor`, `hooks: pre-commit` ... for one git dir, read where git reads them (a
 * `commondir` names the folder holding config and hooks; config.worktree beside); empty when harmless.
 */
export async function programsSetIn(gitDir: string): Promise<string[]> {
  const common = (await fs.readFile(path.join(gitDir, 'commondir'), 'utf8').catch(() => '')).trim();
  const commonDir = common ? path.resolve(gitDir, common) : gitDir;
  const found = common ? [`commondir: ${common}`] : [];
  for (const file of [path.join(commonDir, 'config'), path.join(gitDir, 'config.worktree')]) found.push(...programKeys(await fs.readFile(file, 'utf8').catch(() => '')));
  const hooks = await fs.readdir(path.join(commonDir, 'hooks')).catch(() => [] as string[]);
  for (const h of hooks) if (!h.endsWith('.sample')) found.push(`hooks: ${h}`);
  return [...new Set(found)];
}

function programKeys(text: string): string[] {
  const found: string[] = [];
  let section = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"[^"]*")?\s*\]/.exec(line);
    if (header) {
      section = header[1].toLowerCase().split('.')[0];
      continue;
    }
    const key = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (!key) continue;
    const name = `${section}.${key[1].toLowerCase()}`;
    const value = (key[2] ?? '').trim();
    if (PROGRAM_KEYS.has(name) || section === 'pager' || (section === 'alias' && value.replace(/^"/, '').startsWith('!'))) found.push(`config: ${name}`);
  }
  return found;
}
