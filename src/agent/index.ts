/** The agent loop's public surface. */
export { runAgent } from './loop.js';
export { underCallPrefix } from './call-prefix.js';
export { estimateTokens, resultText, summaryMessage, SUMMARY_PREFIX } from './compaction.js';
export type * from './types.js';
