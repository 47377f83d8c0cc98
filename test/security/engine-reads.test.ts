/**
 * Issue 38 §1: what the engine reads on behalf of a model goes through the fence. This walks src/ and
 * fails when a file uses `fs` (import, require or a dynamic import) without being one of the places
 * listed here, each with why it may: the fenced reader itself, engine state in the home, the engine's
 * own install and the machine, and the few places that touch a model-writable tree for something
 * other than reading it for a model (the fence's own resolution, the write path, listing names,
 * engine-side git, the sandbox). A capability that reads workspace, mount, vault or board files for
 * anything a model can see uses `src/kernel/fenced-read.ts`; the readers the issue names use no `fs` at all.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const HOME = 'engine state in the home, never a model-writable tree';
const INSTALL = "the engine's own install or the machine (binaries, /proc, built assets), never a model-writable tree";

/** Every file of src/ that may use fs, and why. */
const ALLOWED: Record<string, string> = {
  // The fence and the fenced reader: the only resolution and the only reads of model-writable trees for models.
  'src/kernel/fenced-read.ts': 'the fenced reader: resolves, judges and proves every read of a model-writable tree',
  'src/kernel/fence.ts': "the fence's own resolution of a virtual path (realpath, lstat, readlink); reads no file's content",
  'src/kernel/home.ts': HOME,
  'src/kernel/jsonl.ts': `${HOME} (run logs)`,
  'src/kernel/version.ts': `${INSTALL} (package.json)`,
  'src/main.ts': INSTALL,
  'src/cli/invocation.ts': INSTALL,
  'src/cli/pidfile.ts': `${HOME} (engine.pid)`,
  'src/http/web-app.ts': `${INSTALL} (the built web app)`,
  'src/http/sockets/term.ts': `${INSTALL} (the login shell, /proc for the terminal's processes)`,
  // Engine state.
  'src/capabilities/agents/service.ts': HOME,
  'src/capabilities/atlas/store.ts': HOME,
  'src/capabilities/brain/service.ts': HOME,
  'src/capabilities/brain/log.ts': `${HOME} (graph.jsonl, the brain's record)`,
  'src/capabilities/brain/store.ts': `${HOME} (graph.sqlite, the index derived from the record)`,
  'src/capabilities/browser/pairing.ts': HOME,
  'src/capabilities/chat/store.ts': HOME,
  'src/capabilities/codeindex/store.ts': `${HOME} (index/code.sqlite)`,
  'src/capabilities/config/service.ts': HOME,
  'src/capabilities/dashboards/archive.ts': `${HOME} (archived tool results: what a model was already shown)`,
  'src/capabilities/dashboards/catalog.ts': HOME,
  'src/capabilities/dashboards/store.ts': HOME,
  'src/capabilities/db/history.ts': HOME,
  'src/capabilities/db/store-file.ts': HOME,
  'src/capabilities/history/adapters.ts': `${HOME} (its workspace path for skills is a default the skills capability replaces with its own adapter at start)`,
  'src/capabilities/history/service.ts': HOME,
  'src/capabilities/home/service.ts': `${HOME} (moving the home)`,
  'src/capabilities/memory/service.ts': HOME,
  'src/capabilities/models/downloads.ts': HOME,
  'src/capabilities/models/file-sink.ts': HOME,
  'src/capabilities/models/store.ts': HOME,
  'src/capabilities/secrets/file-store.ts': HOME,
  'src/capabilities/workflows/files.ts': `${HOME} (workflow definitions, proposals, cron state)`,
  'src/capabilities/work/links.ts': `${HOME} (chat session files naming an item)`,
  // The install and the machine.
  'src/capabilities/codeindex/local-embedder.ts': `${INSTALL} (the embedding worker's script)`,
  'src/capabilities/models/resources.ts': INSTALL,
  'src/capabilities/models/worker-host.ts': INSTALL,
  'src/capabilities/db/drivers/sqlite-native.ts': `${INSTALL} (the native addon)`,
  'src/capabilities/system/about.ts': `${INSTALL} (README and docs/)`,
  'src/capabilities/system/pick-folder.ts': `${INSTALL} (the folder picker program)`,
  'src/sandbox/probe.ts': `${INSTALL} (bwrap, a probe folder in the temp dir)`,
  'src/sandbox/linux.ts': `${INSTALL} (system folders to bind)`,
  'src/sandbox/egress-session.ts': "/proc (the namespace holder's listening sockets)",
  'src/sandbox/egress-proxy.ts': `${INSTALL} (its socket's temp folder)`,
  'src/sandbox/sandbox.ts': `${INSTALL} (temp folders, the person's home folder to protect)`,
  // Model-writable trees, for something other than reading them for a model.
  'src/capabilities/files/pinned.ts': 'the write path: creates, renames, copies and removes through folders opened and proven (reads go through the fenced reader)',
  'src/capabilities/files/service.ts': 'writes, listings (names and sizes) and folder checks; every read of a file through the fenced reader',
  'src/capabilities/files/walk.ts': 'walks list names and never follow a link; the only files they open are ignore files, never through a link',
  'src/capabilities/files/folder-watch.ts': 'watches folders and lists their names with lstat and readdir; it opens no file and never follows a link (a linked folder is not watched)',
  'src/capabilities/files/mounts.ts': 'realpath and stat of the folder a person mounts',
  'src/capabilities/files/protected.ts': "a repository's git configuration, to know which paths ask before a model writes them (shown to no model)",
  'src/capabilities/files/search.ts': 'finds rg on PATH; the walk reads each file itself (never through a link) and every row is proven by the fenced reader',
  'src/capabilities/git/checkpoints.ts': 'engine-side git, neutralised (docs/security.md): whether a path exists before a snapshot',
  'src/capabilities/git/diff.ts': 'engine-side git, neutralised: temp copies for a diff (git never follows a link in a work tree)',
  'src/capabilities/git/exec.ts': 'engine-side git, neutralised: its temp configuration',
  'src/capabilities/git/repo.ts': 'engine-side git, neutralised: finding repositories (names only)',
  'src/capabilities/git/shadow.ts': 'engine-side git, neutralised: shadow repositories in the home',
  'src/capabilities/git/status.ts': "engine-side git, neutralised: a repository's own HEAD and operation markers",
  'src/sandbox/repos.ts': "the sandbox: every .git to keep read-only (names only; writes nothing, never follows a layout out of the roots)",
  'src/sandbox/git-config.ts': "the sandbox: programs a repository's configuration names, for the warning after a command",
  'src/capabilities/shell/service.ts': "a command's working folder (realpath and stat); the command itself runs in the sandbox",
  'src/capabilities/shell/diagnostics.ts': "whether a root has its own typechecker; it runs through the sandboxed spawn path",
  'src/capabilities/vaults/git.ts': 'whether a vault is a git repository (stat of .git)',
  'src/capabilities/vaults/hidden.ts': 'lists the names agentForbidden hides, for the sandbox to hide them; reads no file',
  'src/capabilities/vaults/service.ts': "a vault's schema (vault.json: read-only to commands, a protected path for models), and a folder a person names before it is mounted",
  'src/capabilities/work/keys.ts': "a board's key counter (a number, never shown) and its item names",
  'src/capabilities/work/store.ts': "names in a board's folders and its own index in the home; every board file, and the folders a write goes through, judged by the fenced reader",
  'src/capabilities/skills/service.ts': "the user tier (the person's own folder, outside every root), listing skill folders and what a model just wrote (provenance); workspace SKILL.md files, for models and for a person's routes (save, delete, history), through the fenced reader",
};

/** The engine-side readers issue 38 names: none of them touches fs (home state aside, listed above). */
const FENCED_ONLY = [
  'src/capabilities/codeindex/indexer.ts',
  'src/capabilities/codeindex/service.ts',
  'src/capabilities/atlas/brief.ts',
  'src/capabilities/atlas/service.ts',
  'src/capabilities/atlas/survey.ts',
  'src/capabilities/atlas/tools.ts',
  'src/capabilities/editor/apply.ts',
  'src/capabilities/editor/complete.ts',
  'src/capabilities/editor/inline-edit.ts',
  'src/capabilities/editor/service.ts',
  'src/capabilities/files/tools.ts',
  'src/capabilities/vaults/index.ts',
  'src/capabilities/vaults/agent-ops.ts',
  'src/capabilities/vaults/notes.ts',
  'src/capabilities/dashboards/service.ts',
  'src/capabilities/dashboards/build.ts',
  'src/capabilities/work/service.ts',
];

const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p.split(path.sep).join('/')] : [];
  });
/** A static import, a re-export, a require or a dynamic import of node's fs, in any spelling. */
const FS = /(?:from|require\(|import\()\s*['"](?:node:)?fs(?:\/promises)?['"]/;
const usesFs = (file: string) => FS.test(readFileSync(file, 'utf8'));

test('no file of src/ uses fs without a reason listed here; a model-writable tree is read through the fenced reader', () => {
  const using = files('src').filter(usesFs);
  assert.deepEqual(
    using.filter((f) => !(f in ALLOWED)),
    [],
    'these files use fs: read workspace, mount, vault and board files through src/kernel/fenced-read.ts, or list the file here with why it must',
  );
  assert.deepEqual(
    Object.keys(ALLOWED).filter((f) => !using.includes(f)),
    [],
    'these files are listed but no longer use fs: take them off the list',
  );
});

test('the engine-side readers the issue names (index, atlas, editor, vault notes, file tools, dashboards, boards) use no fs at all', () => {
  for (const f of FENCED_ONLY) {
    assert.ok(statSync(f).isFile(), `${f} exists`);
    assert.equal(usesFs(f), false, `${f} uses fs; read through the fenced reader`);
  }
});

test('the check sees every spelling of an fs import', () => {
  const spelled = ["import { readFile } from 'node:fs/promises';", 'import fs from "fs";', "const fs = require('node:fs');", "await import('node:fs/promises')", "export { readFileSync } from 'fs';"];
  for (const line of spelled) assert.ok(FS.test(line), line);
});
