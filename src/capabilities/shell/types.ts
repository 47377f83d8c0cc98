/**
 * What the shell capability needs from the rest of the engine, as shapes only. The composition root
 * passes the real fence, the shell policy and the secret mask in; tests pass small stand-ins.
 */
import type { PermissionRequest } from '../../tools/types.js';

export interface FenceRoot {
  name: string;
  path: string;
  kind: 'workspace' | 'mount';
}

/** The part of the multi-root fence (src/kernel/fence.ts) the shell uses. */
export interface FenceLike {
  roots(): FenceRoot[];
  root(name: string): FenceRoot;
  resolve(virtualPath: string, opts?: { allowRoot?: boolean }): Promise<{ virtual: string; root: FenceRoot; real: string; relative: string }>;
}

/** The shell policy's permission request for one command (per-segment keys, forced prompts, hard deny). */
export type ShellPermission = (command: string) => Promise<PermissionRequest>;

/** The hard denylist: a reason when the command must never run, else undefined. */
export type HardDenied = (command: string) => string | undefined;

/** Masks secret-shaped substrings before text reaches an event or a prompt. */
export type Mask = (text: string) => string;
