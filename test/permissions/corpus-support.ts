/** Runs one command through the shell policy and a real gate, reporting the outcome a person would see. */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Home } from '../../src/kernel/home.js';
import { PermissionGate } from '../../src/permissions/gate.js';
import { RuleStore, type PermissionRule } from '../../src/permissions/rules.js';
import { parseShell } from '../../src/permissions/shell-parse.js';
import { shellPermission } from '../../src/permissions/shell-policy.js';
import type { AnyTool, PermissionRequest } from '../../src/tools/types.js';

export type Outcome = 'allow' | 'prompt' | 'force' | 'deny' | 'hard';

/** Newest first: `git push` and `rm` denied over the older program-level allows. */
export const CORPUS_RULES: PermissionRule[] = [
  { key: 'run_shell(git push:*)', decision: 'deny' },
  { key: 'run_shell(rm:*)', decision: 'deny' },
  ...[
    'git', 'npm test', 'npm run', 'ls', 'cat', 'echo', 'grep', 'make', 'find', 'python3', 'node', 'pwd', 'cd', 'docker ps',
    'kubectl get', 'sh', 'bash', 'curl', 'sleep', 'true', 'eval', 'source', 'wc', 'head', 'jq',
  ].map((k) => ({ key: `run_shell(${k}:*)`, decision: 'allow' as const })),
];

const shellTool = { name: 'run_shell' } as AnyTool;

export async function corpusGate(): Promise<{ gate: PermissionGate; close(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'engine-corpus-'));
  const rules = new RuleStore(new Home(dir));
  await rules.add(...CORPUS_RULES);
  return { gate: new PermissionGate({ rules }), close: () => rm(dir, { recursive: true, force: true }) };
}

/** The segments as words (assignments as `NAME=`), the keys without `run_shell(` `:*)`, and the outcome. */
export async function runCorpusCommand(gate: PermissionGate, command: string): Promise<[string[], string[], Outcome]> {
  const parse = await parseShell(command);
  const segments = parse.segments.map((s) => [...s.assignments.map((a) => `${a.name}=`), ...s.words.map((w) => w.text)].join(' '));
  const request = await shellPermission(command);
  const keys = (request.keys ?? [request.key]).map((k) => k.replace(/^run_shell\((.*):\*\)$/s, '$1'));
  if (request.hardDeny) return [segments, keys, 'hard'];
  return [segments, keys, await gateOutcome(gate, request, command)];
}

/** What an attended call of `request` meets at the gate: allow, deny, or a prompt (`force` when the request forced one). */
export async function gateOutcome(gate: PermissionGate, request: PermissionRequest, command: string): Promise<Outcome> {
  const controller = new AbortController();
  let prompted = false;
  const decision = await gate.check(shellTool, request, { command }, {
    signal: controller.signal,
    callId: 'c',
    attended: true,
    emit: (kind) => {
      if (kind === 'permission.requested') {
        prompted = true;
        controller.abort();
      }
    },
  });
  if (prompted) return request.forcePrompt ? 'force' : 'prompt';
  return decision.allow ? 'allow' : 'deny';
}
