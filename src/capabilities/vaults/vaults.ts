/**
 * The vaults capability assembled: the core (registry, indexes, watching), the note routes' API,
 * the agent surface behind the `vault` tool, and capture. engine.ts builds it once.
 */
import { agentOps } from './agent-ops.js';
import { captureApi, type CaptureDeps } from './capture.js';
import { notesApi } from './notes.js';
import { createVaultsCore, type VaultsDeps } from './service.js';
import { vaultTool } from './tool.js';
import { vaultHiddenPaths } from './hidden.js';

export type VaultsService = Awaited<ReturnType<typeof createVaultsService>>;

export async function createVaultsService(deps: VaultsDeps & CaptureDeps & { vaultOf: (agent: string | undefined) => Promise<string | undefined> }) {
  const core = await createVaultsCore(deps);
  const notes = notesApi(core);
  const ops = agentOps(core, notes);
  return {
    list: core.list,
    create: core.create,
    get: core.get,
    close: core.close,
    notes,
    ops,
    capture: captureApi(core, ops, deps),
    tool: vaultTool({ ops, vaultOf: deps.vaultOf }),
    /** What every model tool may not reach (agentForbidden), for the file tools and the shell's sandbox. */
    hidden: vaultHiddenPaths(core),
  };
}
