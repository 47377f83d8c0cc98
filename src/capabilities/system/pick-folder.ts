/**
 * POST /api/pick-folder (seed 000 §4.1): the operating system's own folder picker, so the web
 * workbench can mount a folder without anyone typing a path. zenity or kdialog on Linux (the first
 * on PATH), osascript on macOS, PowerShell on Windows. One picker at a time: it is a window on the
 * person's screen, not a service. The engine only reports the folder; mounting it is the client's
 * next request (POST /api/mounts), which passes the fence's own checks. With no picker to show (no
 * display, none installed) nothing was chosen: `{canceled: true, reason}`, the seed's own answer,
 * with the sentence a client shows beside its typed-path field.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { noBody, obj, route, str } from '../../http/schemas.js';
import { conflict, EngineError } from '../../kernel/errors.js';

export type PickResult = { path: string } | { canceled: true; reason?: string };

interface Picker {
  command: string;
  args: string[];
  /** Exit codes that mean "the person closed the dialog". */
  canceledCodes: number[];
}

const TITLE = 'Choose a folder to open in Workbench Engine';

/** The picker this machine has, or a sentence saying why there is none. */
export function findPicker(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): Picker | string {
  if (platform === 'darwin') {
    return { command: 'osascript', args: ['-e', `POSIX path of (choose folder with prompt "${TITLE}")`], canceledCodes: [1] };
  }
  if (platform === 'win32') {
    const script =
      "Add-Type -AssemblyName System.Windows.Forms; $d = New-Object System.Windows.Forms.FolderBrowserDialog; $d.Description = '" +
      TITLE +
      "'; if ($d.ShowDialog() -eq 'OK') { $d.SelectedPath }";
    return { command: 'powershell.exe', args: ['-NoProfile', '-STA', '-Command', script], canceledCodes: [] };
  }
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) {
    return 'no display to show a folder picker on (neither DISPLAY nor WAYLAND_DISPLAY is set); type the folder path to mount instead';
  }
  const zenity = onPath('zenity', env);
  if (zenity) return { command: zenity, args: ['--file-selection', '--directory', `--title=${TITLE}`], canceledCodes: [1] };
  const kdialog = onPath('kdialog', env);
  if (kdialog) return { command: kdialog, args: ['--getexistingdirectory', env.HOME ?? '/', '--title', TITLE], canceledCodes: [1] };
  return 'no folder picker is installed (install zenity or kdialog); type the folder path to mount instead';
}

function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const full = path.join(dir, name);
    try {
      accessSync(full, constants.X_OK);
      return full;
    } catch {
      // Not in this folder.
    }
  }
  return undefined;
}

/** Runs the picker and reads the chosen folder from its standard output. */
export function runPicker(picker: Picker, env: NodeJS.ProcessEnv = process.env): Promise<PickResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(picker.command, picker.args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d.slice(0, 2000)));
    child.on('error', (e) => reject(new EngineError(409, `the folder picker ${path.basename(picker.command)} could not start (${e.message}); type the folder path to mount instead`)));
    child.on('close', (code) => {
      const chosen = out.trim();
      if (code === 0 && chosen) return resolve({ path: chosen.length > 1 ? chosen.replace(/[\\/]+$/, '') || chosen : chosen });
      if (code === 0 || picker.canceledCodes.includes(code ?? -1)) return resolve({ canceled: true });
      const why = err.trim().split('\n').pop() || `exit code ${code}`;
      reject(new EngineError(409, `the folder picker ${path.basename(picker.command)} failed (${why}); type the folder path to mount instead`));
    });
  });
}

export function pickFolderRoutes(app: FastifyInstance): void {
  let open = false;
  app.post(
    '/api/pick-folder',
    {
      schema: route('system', "shows the operating system's folder picker on this machine and answers the folder chosen", {
        body: noBody,
        response: { 200: { oneOf: [obj({ path: str('the absolute path of the chosen folder') }, ['path']), obj({ canceled: { const: true }, reason: str('why no picker was shown (no display, none installed)') }, ['canceled'])] } },
      }),
    },
    async () => {
      const picker = findPicker();
      if (typeof picker === 'string') return { canceled: true as const, reason: picker };
      if (open) throw conflict('a folder picker is already open on this machine; finish or close it first');
      open = true;
      try {
        return await runPicker(picker);
      } finally {
        open = false;
      }
    },
  );
}
