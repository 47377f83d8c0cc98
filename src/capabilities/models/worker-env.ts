/**
 * The model worker's environment: an allowlist, not the engine's whole `process.env`. The worker runs
 * a third-party runtime on files from the internet, so it gets only what Node and onnxruntime need to
 * start (path, home, user, locale, temp dir; the Windows system variables) and the runtime's own
 * tuning knobs (ONNX Runtime, OpenMP/MKL threads, CUDA device selection). Provider keys, tokens and
 * anything else the engine was started with stay out; a tuning variable whose name or value looks
 * like a secret is dropped too.
 */
import { isSecretName, isSecretValue } from '../shell/env.js';

const NAMES = new Set([
  'PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR', 'TMP', 'TEMP', 'LD_LIBRARY_PATH', 'DYLD_LIBRARY_PATH',
  // Windows: Node needs SYSTEMROOT to start; the rest locate the profile and the shell.
  'SYSTEMROOT', 'WINDIR', 'USERPROFILE', 'APPDATA', 'LOCALAPPDATA', 'COMSPEC', 'PATHEXT',
]);
const PREFIXES = /^(LC_|ORT_|ONNXRUNTIME_|OMP_|KMP_|MKL_|OPENBLAS_|CUDA_)/;

export function workerEnv(from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(from)) {
    if (value === undefined) continue;
    const upper = name.toUpperCase(); // Windows names are case-insensitive (`Path`, `SystemRoot`)
    if (!NAMES.has(upper) && !PREFIXES.test(upper)) continue;
    if (isSecretName(name) || isSecretValue(value)) continue;
    env[name] = value;
  }
  env.ENGINE_MODEL_WORKER = '1';
  return env;
}
