/**
 * The permission request for a `run_shell` command (seed 001 §5 rules 1, 2 and 4): class `code`,
 * one key per segment (the first is `key`), the broader program key, the text to show, the reasons
 * that force a fresh prompt, and the hard denylist's refusal. The shell tool passes this function
 * as its `permission`; the gate does the rest.
 */
import type { PermissionRequest } from '../tools/types.js';
import { hardDeniedParsed, runtimeDenyRisk } from './denylist.js';
import { describeSegment, TOOL } from './shell-command.js';
import { parseShell } from './shell-parse.js';

export { hardDenied } from './denylist.js';

export async function shellPermission(command: string): Promise<PermissionRequest> {
  const parse = await parseShell(command);
  const infos = parse.segments.map(describeSegment);
  // Bare assignments (`X=1; make`) need no key of their own unless they are all there is.
  const withProgram = infos.filter((i) => i.program !== undefined && i.key);
  const keyed = withProgram.length ? withProgram : infos.filter((i) => i.key);
  const keys = [...new Set(keyed.map((i) => i.key!))];
  if (!keys.length) keys.push(`${TOOL}(${command.trim().split(/\s+/)[0] || 'true'}:*)`);
  const first = keyed[0];

  const risks = infos.map(runtimeDenyRisk).filter((r): r is string => !!r);
  const reasons = [...new Set([...(parse.failClosed ? [parse.failClosed] : []), ...parse.notes, ...infos.flatMap((i) => i.force), ...risks])];
  const request: PermissionRequest = { class: 'code', key: keys[0], keys, display: command };
  if (first?.broaderKey && first.key === keys[0]) request.broaderKey = first.broaderKey;
  if (reasons.length) request.forcePrompt = `This command needs a fresh answer: ${reasons.join('; ')}.`;
  const denied = hardDeniedParsed(parse, command);
  if (denied) request.hardDeny = denied;
  return request;
}
