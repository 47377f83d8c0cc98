/** The load generator's own process (see startLoadGenerator): one IPC message in, one result out. */
import { httpLoad, type LoadOptions } from './http-load.js';

process.on('message', (opts: LoadOptions) => {
  void httpLoad(opts).then((r) => process.send!(r));
});
process.on('disconnect', () => process.exit(0));
process.send!({ ready: true });
