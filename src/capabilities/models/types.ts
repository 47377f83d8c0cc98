/** Local models (docs/local-models.md): dtypes, repo names, what the service reports. */
import { EngineError } from '../../kernel/errors.js';

/** The weight file suffix @huggingface/transformers picks for each dtype (onnx/model<suffix>.onnx). */
export const DTYPE_SUFFIX: Record<string, string> = {
  fp32: '',
  fp16: '_fp16',
  q8: '_quantized',
  int8: '_int8',
  uint8: '_uint8',
  q4: '_q4',
  q4f16: '_q4f16',
  bnb4: '_bnb4',
};
export const DTYPES = Object.keys(DTYPE_SUFFIX);
export const DEFAULT_DTYPE = 'q4f16';
/** The load order when a dtype's session fails: smaller first, fp32 last. */
export const DTYPE_FALLBACK = ['q4f16', 'q4', 'q8', 'fp32'];

/** Non-weight files a model needs (the optional ones are fetched when the repo has them). */
export const MODEL_FILES = ['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json'];
export const REQUIRED_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'];

const REPO = /^[A-Za-z0-9][A-Za-z0-9._-]{0,95}\/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$/;

/** Checks an `org/name` repo id; the two parts become folder names under <home>/models. */
export function checkRepo(repo: unknown): string {
  if (typeof repo !== 'string' || !REPO.test(repo) || repo.includes('..')) {
    throw new EngineError(400, 'repo must be "org/name" (letters, digits, ".", "_" or "-"), e.g. "onnx-community/Qwen2.5-0.5B-Instruct"');
  }
  return repo;
}

export function checkDtype(dtype: unknown): string {
  if (dtype === undefined) return DEFAULT_DTYPE;
  if (typeof dtype !== 'string' || !DTYPES.includes(dtype)) throw new EngineError(400, `dtype must be one of ${DTYPES.join(', ')}`);
  return dtype;
}

/** The weight files of one dtype within a repo's file list: the graph and its external data parts. */
export function weightFiles(files: string[], dtype: string): string[] {
  const base = `onnx/model${DTYPE_SUFFIX[dtype]}.onnx`;
  if (!files.includes(base)) return [];
  // Exact names only: a file name from the hub becomes a path under the model's folder.
  const part = new RegExp(`^${base.replace(/[.]/g, '\\.')}_data(?:_\\d+)?$`);
  return [base, ...files.filter((f) => part.test(f)).sort()];
}

/** Which dtypes a file list has weights for. */
export function dtypesIn(files: string[]): string[] {
  return DTYPES.filter((d) => files.includes(`onnx/model${DTYPE_SUFFIX[d]}.onnx`));
}

export interface LocalModel {
  repo: string;
  commit: string;
  dtypes: string[];
  bytes: number;
  path: string;
}
