/**
 * Generates a tiny REAL feature-extraction model that @huggingface/transformers loads from local
 * files (a BERT-type config, a byte-level tokenizer, an ONNX graph of one Gather): each byte has a
 * fixed 32-dimension vector, so a text's mean-pooled embedding is the average of its bytes' vectors.
 * Texts sharing many characters land near each other; that is all a test of the plumbing needs.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeModel, ElemType } from './onnx-writer.js';
import { bytesToUnicode } from './tiny-model.js';

const HIDDEN = 32;

export function writeTinyEmbedder(dir: string): { dir: string; files: Record<string, { size: number; sha256: string }> } {
  const vocab: Record<string, number> = {};
  bytesToUnicode().forEach((c, b) => (vocab[c] = b));
  const pad = (vocab['[PAD]'] = 256);
  const V = 257;
  const table = new Float32Array(V * HIDDEN);
  for (let t = 0; t < 256; t++) {
    const h = createHash('sha256').update(String(t)).digest();
    for (let d = 0; d < HIDDEN; d++) table[t * HIDDEN + d] = (h[d] - 128) / 128;
  }
  const onnx = encodeModel({
    name: 'tiny-embedder',
    nodes: [{ op: 'Gather', name: 'lookup', inputs: ['table', 'input_ids'], outputs: ['last_hidden_state'] }],
    initializers: [{ name: 'table', elemType: ElemType.FLOAT, dims: [V, HIDDEN], raw: new Uint8Array(table.buffer) }],
    inputs: [{ name: 'input_ids', elemType: ElemType.INT64, dims: ['batch_size', 'sequence_length'] }],
    outputs: [{ name: 'last_hidden_state', elemType: ElemType.FLOAT, dims: ['batch_size', 'sequence_length', HIDDEN] }],
  });
  const tokenizer = {
    version: '1.0', truncation: null, padding: null,
    added_tokens: [{ id: pad, content: '[PAD]', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }],
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: null,
    decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: false, byte_fallback: false, vocab, merges: [] },
  };
  const out: Record<string, Uint8Array | string> = {
    'config.json': JSON.stringify({ architectures: ['BertModel'], model_type: 'bert', hidden_size: HIDDEN, vocab_size: V, num_hidden_layers: 1, num_attention_heads: 1, max_position_embeddings: 1 << 20, pad_token_id: pad }),
    'tokenizer.json': JSON.stringify(tokenizer),
    'tokenizer_config.json': JSON.stringify({ tokenizer_class: 'PreTrainedTokenizerFast', pad_token: '[PAD]', model_max_length: 1 << 20, clean_up_tokenization_spaces: false }),
    'special_tokens_map.json': JSON.stringify({ pad_token: '[PAD]' }),
    'onnx/model.onnx': onnx,
  };
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  const files: Record<string, { size: number; sha256: string }> = {};
  for (const [name, body] of Object.entries(out)) {
    const bytes = Buffer.from(body);
    writeFileSync(join(dir, name), bytes);
    files[name] = { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  }
  return { dir, files };
}
