/**
 * The code of the chart worker thread (chart-draw.ts), kept as text so it runs the same from the
 * sources (tsx), from dist/ and from the one-file bundle. It loads vega-lite and vega once, then
 * draws one chart per message: vega-lite compiles the spec, vega renders it headless to SVG with a
 * loader that loads nothing (a chart's data is inline). Whatever a chart costs is spent here, under
 * the worker's heap cap and the engine's time budget, never on the engine's own thread.
 */
export const CHART_WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const vegaLite = require(workerData.vegaLite);
const vega = require(workerData.vega);
const quiet = { level: () => quiet, error: () => quiet, warn: () => quiet, info: () => quiet, debug: () => quiet };
const refuse = () => Promise.reject(new Error('charts load no data: it is inline'));
const loader = { load: refuse, sanitize: refuse, http: refuse, file: refuse };
parentPort.on('message', async ({ id, spec, width, height }) => {
  let view;
  try {
    const compiled = vegaLite.compile(Object.assign({ width, height }, spec), { logger: quiet }).spec;
    view = new vega.View(vega.parse(compiled), { renderer: 'none', loader }).logLevel(vega.None);
    parentPort.postMessage({ id, svg: await view.toSVG() });
  } catch (err) {
    parentPort.postMessage({ id, error: String((err && err.message) || err).split('\n')[0] });
  } finally {
    if (view) view.finalize();
  }
});
parentPort.postMessage({ ready: true });
`;
