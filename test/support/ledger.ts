import { Bus } from '../../src/kernel/bus.js';
import { Home } from '../../src/kernel/home.js';
import { RunLedger } from '../../src/kernel/runs.js';

/** A run ledger over the home at `root` (made if missing), loaded as an engine's start would. */
export async function ledgerAt(root: string): Promise<RunLedger> {
  const home = new Home(root);
  await home.ensure();
  const runs = new RunLedger(home, new Bus());
  await runs.init();
  return runs;
}
