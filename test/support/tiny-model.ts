/**
 * Generates a tiny REAL causal language model that @huggingface/transformers loads from local
 * files: a byte-level BPE tokenizer, a chat template, a LlamaForCausalLM config and an ONNX graph
 * (one Gather: the next token's logits are a row of a [vocab, vocab] table picked by the last token).
 *
 * Behaviour, deterministic: after the assistant prompt it writes "abcdefghijklmnopqrstuvwxyz" and
 * stops (27 tokens with the end token); when the last user message contains "forever" it writes
 * "0123456789" over and over until max tokens or a stop; when the request carries tools and the last
 * user message mentions "notes" it writes one Hermes-style
 * `<tool_call>{"name": "read_file", "arguments": {"path": "notes.txt"}}</tool_call>` and stops.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { encodeModel, ElemType } from './onnx-writer.js';

/** GPT-2's byte-to-unicode table: the alphabet of byte-level BPE. */
export function bytesToUnicode(): string[] {
  const keep: number[] = [];
  for (let b = 33; b <= 126; b++) keep.push(b);
  for (let b = 161; b <= 172; b++) keep.push(b);
  for (let b = 174; b <= 255; b++) keep.push(b);
  const map: string[] = [];
  let n = 0;
  for (let b = 0; b < 256; b++) map[b] = keep.includes(b) ? String.fromCharCode(b) : String.fromCharCode(256 + n++);
  return map;
}

export const TINY_REPLY = 'abcdefghijklmnopqrstuvwxyz';
export const TINY_TOOL_CALL = '<tool_call>{"name": "read_file", "arguments": {"path": "notes.txt"}}</tool_call>';

const SPECIALS = ['<|endoftext|>', '<|user|>', '<|assistant|>', '<|forever|>', '<|tool|>', '<|system|>'];
/** Multi-character tokens (added as non-special tokens) so the tool-call chain has one distinct token per step. */
const TOOL_PIECES = ['<tool_call>', '{"name": ', '"read_file"', ', "arguments": ', '{"path": ', '"notes.txt"', '}}', '</tool_call>'];

export interface TinyModel { dir: string; files: Record<string, { size: number; sha256: string }>; vocabSize: number; eosId: number }

const CHAT_TEMPLATE =
  "{% for message in messages %}" +
  "{% if message['role'] == 'system' %}<|system|>{{ message['content'] }}" +
  "{% elif message['role'] == 'user' %}<|user|>{{ message['content'] }}" +
  "{% elif message['role'] == 'assistant' %}<|assistant|>{{ message['content'] }}<|endoftext|>" +
  "{% else %}<|user|>{{ message['content'] }}{% endif %}{% endfor %}" +
  "{% if add_generation_prompt %}{% set last = messages[messages|length - 1] %}" +
  "{% if tools and last['role'] == 'user' and 'notes' in last['content'] %}<|tool|>" +
  "{% elif last['role'] == 'user' and 'forever' in last['content'] %}<|forever|>" +
  "{% else %}<|assistant|>{% endif %}{% endif %}";

/** Writes the model into `dir` (creating it) and returns the files with their sizes and sha256. */
export function writeTinyModel(dir: string, options: { dtypes?: string[] } = {}): TinyModel {
  const byteChars = bytesToUnicode();
  const vocab: Record<string, number> = {};
  byteChars.forEach((c, b) => (vocab[c] = b));
  const specialIds: Record<string, number> = {};
  for (const s of [...SPECIALS, ...TOOL_PIECES]) specialIds[s] = vocab[s] = Object.keys(vocab).length;
  const V = Object.keys(vocab).length;
  const eos = specialIds['<|endoftext|>'];

  const next = new Map<number, number>();
  const ch = (c: string) => c.charCodeAt(0);
  next.set(specialIds['<|assistant|>'], ch('a'));
  for (let c = ch('a'); c < ch('z'); c++) next.set(c, c + 1);
  next.set(ch('z'), eos);
  next.set(specialIds['<|forever|>'], ch('0'));
  for (let c = ch('0'); c < ch('9'); c++) next.set(c, c + 1);
  next.set(ch('9'), ch('0'));
  const chain = ['<|tool|>', ...TOOL_PIECES];
  for (let i = 0; i < chain.length - 1; i++) next.set(specialIds[chain[i]], specialIds[chain[i + 1]]);
  next.set(specialIds['</tool_call>'], eos);

  const table = new Float32Array(V * V);
  for (let t = 0; t < V; t++) table[t * V + (next.get(t) ?? eos)] = 10;

  const onnx = encodeModel({
    name: 'tiny',
    nodes: [{ op: 'Gather', name: 'lookup', inputs: ['table', 'input_ids'], outputs: ['logits'] }],
    initializers: [{ name: 'table', elemType: ElemType.FLOAT, dims: [V, V], raw: new Uint8Array(table.buffer) }],
    inputs: [{ name: 'input_ids', elemType: ElemType.INT64, dims: ['batch_size', 'sequence_length'] }],
    outputs: [{ name: 'logits', elemType: ElemType.FLOAT, dims: ['batch_size', 'sequence_length', V] }],
  });

  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [...SPECIALS, ...TOOL_PIECES].map((content) => ({
      id: specialIds[content], content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: SPECIALS.includes(content),
    })),
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: null,
    decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: false, byte_fallback: false, vocab, merges: [] },
  };
  const tokenizerConfig = {
    tokenizer_class: 'PreTrainedTokenizerFast',
    chat_template: CHAT_TEMPLATE,
    eos_token: '<|endoftext|>',
    pad_token: '<|endoftext|>',
    bos_token: null,
    clean_up_tokenization_spaces: false,
    model_max_length: 1 << 20,
  };
  const config = {
    architectures: ['LlamaForCausalLM'], model_type: 'llama', num_hidden_layers: 1, num_attention_heads: 1, num_key_value_heads: 1,
    hidden_size: 8, vocab_size: V, eos_token_id: eos, pad_token_id: eos, bos_token_id: eos, max_position_embeddings: 1 << 20,
  };
  const generationConfig = { eos_token_id: eos, pad_token_id: eos, bos_token_id: eos, do_sample: false };

  const out: Record<string, Uint8Array | string> = {
    'config.json': JSON.stringify(config, null, 2),
    'generation_config.json': JSON.stringify(generationConfig, null, 2),
    'tokenizer.json': JSON.stringify(tokenizer),
    'tokenizer_config.json': JSON.stringify(tokenizerConfig, null, 2),
    'special_tokens_map.json': JSON.stringify({ eos_token: '<|endoftext|>', pad_token: '<|endoftext|>' }),
  };
  // The dtype only picks the file's suffix; every variant holds the same fp32 graph.
  for (const suffix of options.dtypes ?? ['', '_q4f16', '_q4', '_quantized']) out[`onnx/model${suffix}.onnx`] = onnx;

  mkdirSync(join(dir, 'onnx'), { recursive: true });
  const files: TinyModel['files'] = {};
  for (const [name, body] of Object.entries(out)) {
    const bytes = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body);
    writeFileSync(join(dir, name), bytes);
    files[name] = { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  }
  return { dir, files, vocabSize: V, eosId: eos };
}
