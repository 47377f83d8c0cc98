/**
 * What each push says. Titles and ids only: the run's title (a workflow's name, a chat's title), a
 * gate's node id, a tool's name. Never a gate's message (rendered from trigger payloads and command
 * lines), a prompt's display (the command or arguments), a chat's text or an error: a push crosses
 * a push service and shows on a lock screen, and the phone reads the rest over the API once opened.
 * Every text still passes the secret mask and is clipped.
 */
import { createHash } from 'node:crypto';
import { LIMITS } from '../../kernel/limits.js';
import type { PushMessage } from './types.js';

export type Mask = (text: string) => string;

/** A run that ended, as the run-finished push names it. */
export interface EndedRun {
  runId: string;
  title: string;
  failed: boolean;
}

const clip = (mask: Mask, text: string) => {
  const masked = mask(text.replace(/\s+/g, ' ').trim());
  return masked.length > LIMITS.pushTitleChars ? `${masked.slice(0, LIMITS.pushTitleChars - 1)}…` : masked;
};
const approvalUrl = (id: string) => `/m/?approval=${encodeURIComponent(id)}`;

/** A push service's Topic header: at most 32 base64url characters, the same for the same subject. */
export const topicOf = (id: string) => createHash('sha256').update(id).digest('base64url').slice(0, 32);

export function gateMessage(mask: Mask, gate: { key: string; nodeId: string; runTitle: string }): PushMessage {
  return {
    kind: 'gate',
    title: 'Approval needed',
    body: `${clip(mask, gate.runTitle)} waits at ${clip(mask, gate.nodeId)}`,
    url: approvalUrl(gate.key),
    tag: `gate:${gate.key}`,
    ids: [gate.key],
  };
}

export function permissionMessage(mask: Mask, prompt: { runId: string; callId: string; tool: string; runTitle: string }): PushMessage {
  const id = `${prompt.runId}:${prompt.callId}`;
  return {
    kind: 'permission',
    title: 'Permission needed',
    body: `${clip(mask, prompt.tool)} in ${clip(mask, prompt.runTitle)}`,
    url: approvalUrl(id),
    tag: `permission:${id}`,
    ids: [id],
  };
}

/** One push for every run that ended within the hold. */
export function runsMessage(mask: Mask, ended: EndedRun[]): PushMessage {
  const failed = ended.filter((r) => r.failed).length;
  const title =
    ended.length === 1 ? (failed ? 'Run failed' : 'Run finished') : `${ended.length} runs finished${failed ? `, ${failed} failed` : ''}`;
  const names = ended.slice(0, 3).map((r) => clip(mask, r.title));
  const more = ended.length > 3 ? ` and ${ended.length - 3} more` : '';
  // A push service takes about 4 kB of payload: the first 50 run ids fit with room to spare.
  return { kind: 'runs', title, body: names.join(', ') + more, url: '/m/runs', tag: 'runs', ids: ended.slice(0, 50).map((r) => r.runId) };
}
