/**
 * Every number of both seeds' Limits sections (and the engine's own bounds), in one table.
 * Use sites read from here; a literal limit elsewhere is a bug.
 */
export const LIMITS = {
  // HTTP (seed 000 §8)
  requestBodyBytes: 32 * 1024 * 1024,
  binaryUploadBytes: 50 * 1024 * 1024,
  filesPerRoot: 1500,
  searchQueryMinChars: 2,
  runsListed: 100,
  webhookPayloadBytes: 8 * 1024,
  dbSchemaCacheMs: 60_000,
  tablePageDefault: 100,
  vaultSearchDefault: 20,
  /** Characters of note bodies a vault keeps from its recent searches for the next snippets (vaults/shown.ts): ~50 notes of 10 kB. */
  vaultShownChars: 512 * 1024,
  completeDeadlineMs: 15_000,
  completeMaxTokens: 256,
  completeMaxLines: 10,
  defaultEnginePort: 7777,
  defaultGatewayPort: 7778,

  // Tools (seed 001 §8)
  toolResultChars: 24_000,
  toolDescriptionChars: 300, // GET /api/tools clips each description to this
  toolEventResultChars: 2_000, // a tool.result event carries at most this much of the result
  toolDiffChars: 16_000, // the diff a file write shows people (tool.result, the chat transcript) is cut here
  toolDiffAlignLines: 4_000, // changed lines aligned line by line in that diff; more are shown as one replacement hunk
  toolDiffAlignMs: 30, // aligning them gives up after this (then: one replacement hunk), so a rewrite never stalls the engine
  promptDisplayChars: 4_000, // a prompt shows at most this much of a call's arguments (tools with no display of their own)
  protectedPromptChars: 4_000, // a protected-path prompt shows at most this much of what would be written
  mcpTextChars: 20_000,
  /** MCP server restart backoff: first delay, ceiling, and how long up counts as stable (resets it). */
  mcpRestartBaseMs: 500,
  mcpRestartMaxMs: 60_000,
  mcpStableMs: 30_000,
  /** One MCP tool call's deadline (progress notifications reset it). */
  mcpToolTimeoutMs: 600_000,
  parallelReadOnlyTools: 4,
  listDirEntries: 500,
  grepMatches: 200,
  grepChars: 20_000,
  grepLineChars: 300,
  grepMaxOffset: 10_000,
  grepRootTimeoutMs: 30_000,
  globPaths: 500,
  globChars: 20_000,
  globMaxOffset: 10_000,
  diagnostics: 100,
  shellTimeoutMs: 300_000,
  shellHeadChars: 8_000,
  shellTailChars: 12_000,
  shellReadChars: 200_000,
  loginEnvTimeoutMs: 15_000, // reading the login shell's environment (once, at start) gives up after this; the engine's own stands in
  shellOutputEventMs: 250, // a running command's live output goes out at most this often (shell.output)
  shellOutputEventChars: 8_000, // one shell.output event holds at most this much (the end of a flood)
  shellOutputEvents: 100, // live output of one command stops after this many full events' worth (the result still has it)
  webFetchChars: 12_000,
  webFetchTimeoutMs: 15_000,
  webSearchResults: 8,
  delegateDepth: 2,
  browserWaitMs: 10_000,
  browserActionTimeoutMs: 30_000, // one browser operation (a page load included) gives up after this
  browserSnapshotChars: 18_000, // a snapshot outline is cut here, the rest counted (under the 24 000 tool clip)
  browserSettleQuietMs: 300, // after click, type, press, select, navigate: the page counts as settled once no request is in flight and its DOM is unchanged this long
  browserSettleMaxMs: 1_000, // ... waiting at most this long (Playwright MCP's bound); the answer says what was still pending
  activityLimitDefault: 50,
  activityLimitCap: 200,
  activitySinceHoursDefault: 24,
  vaultLimitDefault: 20,
  /** Entries walked per vault to find what its agentForbidden globs hide from a shell command (more: the whole vault is hidden). */
  hiddenWalkEntries: 50_000,
  vaultLogEntryChars: 2_000, // one append_log entry (engine's own bound)
  vaultIndexSaveMs: 5_000, // a vault's persisted index is rewritten this long after changes settle (stale entries are caught by mtime+size anyway)
  builtInToolCount: 52,

  // The engine's own bounds
  supervisorBackoffStartMs: 250, // a crashed engine restarts after this, doubling per crash
  supervisorBackoffMaxMs: 30_000,
  supervisorStableAfterMs: 30_000, // an engine that ran this long resets the backoff
  supervisorStopGraceMs: 10_000, // SIGKILL after this when the engine does not stop on SIGTERM
  cliStatusTimeoutMs: 2_000, // engine status: how long the running engine's /api/status may take
  cliStopExtraWaitMs: 5_000, // engine stop: waits the supervisor's grace plus this for both processes to go
  chatImagesMax: 10, // images attached to one chat message
  chatIndexStatBatch: 64, // session files stat'ed at once when the chat index is checked at start
  compactMessageChars: 8_000, // the summariser sees each message clipped to this
  compactToolArgsChars: 500,
  compactToolResultChars: 2_000,
  warmUpDelayMs: 1_000, // the model SDK and the bash grammar load this long after the engine listens
  diagnosticsOutputBytes: 32 * 1024 * 1024, // a typechecker's output read at most
  socketBufferBytes: 8 * 1024 * 1024, // a client further behind than this is dropped
  runLogFlushMs: 25, // batching window for run-log appends
  sharedRunLogRuns: 1_000, // runs per segment of a shared run log, so reading one run's events stays cheap
  runIndexCompactRatio: 1.25, // runs/index.jsonl is rewritten one line a run at start past this many lines a run (each run appends two)
  runIndexParseBatch: 500, // stored run records parsed per turn of the event loop once the engine listens (about 1.5 ms at 300 bytes a record)
  searchResultsCap: 500, // matches across all roots for GET /api/search

  // Providers, the agent loop and chat
  modelRetries: 4, // transient provider failures (429, 5xx, reset) retried this many times
  modelRetryBaseMs: 500, // first backoff; doubles each attempt
  modelRetryMaxMs: 8_000, // longest single backoff (also caps a provider's retry-after)
  testProviderTimeoutMs: 20_000, // POST /api/test-provider gives up after this
  testProviderMaxTokens: 16,
  defaultContextWindow: 128_000, // tokens, when a provider entry does not say and the server does not tell
  contextWindowProbeMs: 1_500, // asking a local server its context window (Ollama, LM Studio, llama.cpp)
  toolBudgetShareMin: 0.05, // PUT /api/settings: toolBudgetShare (the window's share for tool definitions) is within [min, max]
  toolBudgetShareMax: 0.9,
  toolSearchResults: 5, // tools tool_search answers with (its limit argument goes up to toolSearchResultsMax)
  toolSearchResultsMax: 20,
  tokenizerIdleMs: 60_000, // the BPE ranks (~70 MB) are let go after this long without a count
  tokenCountCacheEntries: 4_096, // texts whose token count is remembered (tool definitions, per counter)
  windowReserveTokens: 256, // kept free for the reply when deciding whether a request fits the window
  compactKeepTurns: 2, // most recent turns kept whole when older ones are summarised
  compactSummaryMaxTokens: 2_000,
  chatPartialFlushMs: 250, // a reply being streamed is saved this often, so an engine crash keeps it
  chatSessionsLoaded: 32, // chat transcripts kept in memory; idle sessions used longest ago are unloaded
  chatIndexFlushMs: 1_000, // chat/index.json (session summaries) is rewritten this long after a change
  chatQueueMax: 20, // messages waiting behind a busy session
  chatMessageChars: 200_000, // one chat message
  chatTitleChars: 200,
  chatPageMax: 500, // GET /api/chat/<id>?limit=: messages in one page
  chatSessionIdChars: 128,
  chatModelIdChars: 200, // a model id a chat session picks (POST /api/chat model, PUT /api/chat/model)
  chatToolResultViewChars: 6_000, // a tool call's result in GET /api/chat/<id> (its start and end; the model had up to toolResultChars)

  searchVerifyParallel: 8, // files re-read at once to prove search rows came from inside the fence
  searchVerifySyncBytes: 256 * 1024, // files up to this size are proven in one synchronous burst (no thread-pool round trips)
  searchLineChars: 300, // each matched line in GET /api/search is clamped like grep's
  fileTextBytes: 16 * 1024 * 1024, // GET /api/files/<path> and read_file refuse larger text files
  indexFileBytes: 512 * 1024, // the semantic index gives no vectors to a larger file (it is listed, not chunked)
  atlasFileBytes: 1024 * 1024, // the atlas brief parses no larger file
  fencedFolderMs: 1_000, // the fenced reader remembers a folder's real location this long (every read still proves what it opened)
  fencedFoldersRemembered: 4_096, // folders it remembers at once; past it, it starts afresh
  fencedRefusalsRemembered: 10_000, // paths the fenced reader remembers having logged as refused (one line each); past it, it starts afresh
  readFileChars: 23_800, // a read_file answer stays under the result clip, so its paging header survives
  grepSortedCap: 20_000, // above this many raw matches grep re-runs sorted and stops early
  watcherBatchMs: 100, // fs.changed events are batched over this window
  ownWriteEchoMs: 3_000, // the engine's own writes are not echoed as fs.changed for this long
  mountNameChars: 64,

  // Agents, skills, memory, reports (engine's own bounds)
  agentNameChars: 64,
  skillNameChars: 64,
  agentListDescriptionChars: 400, // each agent's description in the "# Agents" prompt block (delegate)
  skillUrlBytes: 1024 * 1024, // a skill fetched by URL; larger is refused, never cut
  skillUrlRedirects: 5,
  memoryFileBytes: 1024 * 1024, // one memory note
  memorySnapshotsKept: 20, // consolidation snapshots per scope
  reportRunsLimitDefault: 100,
  reportRunsLimitCap: 1000,

  shutdownGraceMs: 3_000, // on SIGTERM/SIGINT, live runs get this long to end as stopped

  // Foundation capabilities (settings, secrets, config, notifications, history)
  chatMaxTurnsMax: 1000, // PUT /api/settings: chatMaxTurns is 1..this
  compactFractionMin: 0.1, // PUT /api/settings: compactFraction is within [min, max]
  compactFractionMax: 0.95,
  secretNameChars: 128,
  secretValueBytes: 64 * 1024,
  keychainProbeMs: 3_000, // a keychain that does not answer a probe round trip in this time is not used
  configWatchDebounceMs: 75, // editors write a file in several steps; reload once they settle
  notificationsKept: 500, // the oldest are dropped beyond this
  notificationTitleChars: 300,
  notificationBodyChars: 8_000,
  historyVersionsKept: 200, // per item; the oldest versions are pruned beyond this
  historyContentBytes: 8 * 1024 * 1024,
  historyNameChars: 128,

  // Permissions (seed 001 §5)
  permissionKeyChars: 1_000, // longest rule key accepted
  permissionRules: 5_000, // rules kept in permissions.json; the oldest fall off
  shellParseTimeoutMs: 5_000, // a bash parse taking longer fails closed (forces a prompt); ~1 s per 100 KB on 2 cores
  shellParseMaxChars: 100_000, // a longer command is not parsed at all: it forces a prompt
  shellKillGraceMs: 2_000, // SIGTERM to SIGKILL of a stopped or timed-out process group
  shellDrainMs: 1_000, // after the shell exits, how long its output pipes may stay open (a background process holding them)
  diagnosticsTimeoutMs: 120_000, // one typechecker run
  termScrollbackChars: 16_000, // replayed to a socket that attaches to a live terminal
  termMaxCols: 1_000,
  termMaxRows: 500,
  termReattachGraceMs: 3_000, // a terminal outlives its last socket this long (a panel reload)
  webFetchMaxBytes: 5 * 1024 * 1024, // bytes read of one page before it is cut
  webRedirects: 5,
  webFetchCacheMs: 60_000, // paging a page with offset reads the text fetched this recently
  webFetchCachePages: 8,
  termSessions: 16, // live terminals at once; a 17th id is refused until one closes

  // Git and checkpoints (issue 13)
  gitTimeoutMs: 120_000, // one git command; a hung hook or a huge repository is killed after this
  gitDiffBytes: 2 * 1024 * 1024, // a diff answer; whole files past this are listed in a note instead
  gitTreeStatusEntries: 20_000, // entries of GET /api/git/tree-status across all roots
  gitRepoScanDirs: 20_000, // folders walked per root looking for nested repositories
  gitRepoScanDepth: 8,
  gitFilesDiffPaths: 200, // `paths=` of one GET /api/git/files-diff
  gitModelDiffChars: 60_000, // the diff a commit-message or review pass is shown
  checkpointsKept: 100, // per root; the oldest beyond this are pruned
  checkpointMaxAgeMs: 7 * 24 * 3600_000, // older checkpoints are pruned (never the first or last of a live run)

  // The sandbox under run_shell (src/sandbox)
  sandboxProbeTimeoutMs: 10_000, // the one real start of the sandbox that decides whether it works here
  sandboxRepoScanDirs: 20_000, // folders walked per command to find every .git (config and hooks kept read-only)
  sandboxRepoScanDepth: 12,
  egressSessionStartMs: 10_000, // how long the shared network namespace's bridge may take to listen before commands fall back to their own

  // Databases (seed 000 §4.15 and §8; the rest are the engine's own bounds)
  dbConnectionIdChars: 64,
  dbRowLimitDefault: 1_000, // rows kept per statement when a connection does not say
  dbRowLimitMax: 100_000,
  dbTimeoutDefaultMs: 30_000, // one statement; stopped on the server past this
  dbTimeoutMaxMs: 600_000,
  dbTablePageMax: 10_000, // table-data `limit` at most
  dbHistoryKept: 500, // lines per connection; older ones are cut when the file doubles
  dbHistorySqlChars: 4_000, // SQL kept per history line and per db.query event
  dbToolCellChars: 200, // a db_query table cell shown to a model is clipped to this
  dbToolRows: 200, // rows a db_query answer shows at most (under the 24 000-character clip)
  dbExportBatch: 5_000, // rows pulled from a cursor per step of an export (fewer round trips; a few MB at most)
  dbCatalogCacheMs: 60_000, // what a read may call, as the server's catalog says (functions, operators, routines), kept per connection
  dbCatalogTimeoutMs: 10_000, // a catalog read gets this long on the server, whatever the connection's own (shorter) timeout
  dbJudgeDepth: 8, // SQL inside SQL (a function body, ts_stat's query) judged this many levels deep; deeper is refused

  // Workflows (issue 12; the engine's own bounds)
  workflowIdChars: 128,
  workflowDocBytes: 4 * 1024 * 1024, // a workflow file larger than this is rejected, never parsed
  workflowNodesMax: 10_000,
  workflowNodeIterations: 1_000, // a node re-entered by a loop more often than this fails the run
  workflowRetryAttemptsMax: 20,
  workflowRetryBackoffMaxMs: 300_000, // one retry's wait, after doubling
  workflowMapConcurrencyMax: 64,
  workflowMapItemsMax: 100_000,
  workflowChildDepth: 8, // subworkflows nested deeper than this fail (a workflow calling itself through another)
  workflowStopGraceMs: 5_000, // a stopped node's work gets this long to wind down (child runs end first) before it is abandoned
  workflowWatchDebounceMs: 75, // outside edits of workflows/*.json settle this long before a reload
  dashboardWatchDebounceMs: 75, // outside edits of dashboards/*.json settle this long before a reload
  gateChangesChars: 20_000, // what gate.waiting shows of the run's changes so far
  // Phone push (docs/push.md)
  pushDevicesMax: 50, // subscriptions kept, one per device
  pushEndpointChars: 2_048,
  pushRunHoldMs: 4_000, // finished runs wait this long to leave as one push
  pushPresenceIdleMs: 120_000, // a workbench reporting no input for this long counts as away
  pushSendTimeoutMs: 10_000,
  pushTitleChars: 80, // each title a push carries is clipped here
  pushApprovalTtlS: 12 * 3600, // how long a push service keeps an undelivered approval push
  pushRunTtlS: 3600,
  // A pool of engines on one PostgreSQL (docs/pool.md)
  poolDbConnections: 8, // connections each engine keeps to the pool's database (plus one that listens, and pg-boss's own)
  poolDbConnectMs: 10_000, // a connection attempt gives up after this
  poolListenRetryMaxMs: 5_000, // the listening connection retries with backoff up to this
  poolHeartbeatMs: 2_000, // each engine says it is alive this often
  poolEngineDeadMs: 10_000, // an engine silent this long is dead: its runs are taken over (kill -9 -> taken over well within 30 s)
  poolConcurrency: 4, // runs one engine's worker executes at once (ENGINE_CONCURRENCY, --concurrency)
  poolConcurrencyMax: 64,
  poolWorkerPollSeconds: 2, // a worker asks the queue this often; a queued run also wakes it at once
  poolChildGraceMs: 3_000, // a queued child run no engine took by then runs in its parent's engine (every worker is busy)
  poolChildPollMs: 2_000, // a parent looks at its child's row this often besides the row's own announcements
  poolJobExpireSeconds: 86_399, // the queue's longest allowed hand-off (pg-boss caps it under 24 h); a run's truth is its own row
  poolNotifyBytes: 7_900, // an event line up to this rides in its NOTIFY; a longer one is fetched by id
  // Dashboard charts, drawn in a worker thread (docs/dashboards.md)
  chartDrawMs: 2_000, // one chart's drawing time; past it the worker is stopped and the widget says so
  chartHeapMb: 256, // the chart worker's heap (V8 old generation); a chart that needs more stops it
  chartWorkerStartMs: 60_000, // loading vega into a new worker gives up after this (a loaded machine takes seconds)
  chartStoppedKeptMs: 600_000, // a chart stopped at a limit shows so for this long before a view tries it again
  chartWorkerIdleMs: 300_000, // a worker with nothing to draw for this long exits, and vega's memory with it (a new one takes 1-2 s to load vega)
} as const;

