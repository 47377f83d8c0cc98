/**
 * Fill-in-the-middle prompts. A code model trained for FIM takes the text before and after the
 * cursor between its own special tokens; the family is known from the model id, the way Continue
 * and llama.vim pick a template. An unknown family on a completions endpoint gets the OpenAI-style
 * `suffix` parameter instead (llama.cpp, vLLM, Ollama and LM Studio accept it and apply the
 * model's own template).
 */
export interface FimTemplate {
  family: string;
  prompt(prefix: string, suffix: string): string;
  /** Tokens that end a fill; the server stops there and the post-processing cuts there too. */
  stop: string[];
}

const TEMPLATES: Array<{ match: RegExp; template: FimTemplate }> = [
  {
    match: /qwen.*coder|codeqwen/i,
    template: { family: 'qwen', prompt: (p, s) => `<|fim_prefix|>${p}<|fim_suffix|>${s}<|fim_middle|>`, stop: ['<|endoftext|>', '<|fim_prefix|>', '<|fim_suffix|>', '<|fim_middle|>', '<|fim_pad|>', '<|repo_name|>', '<|file_sep|>', '<|im_start|>', '<|im_end|>'] },
  },
  {
    match: /deepseek.*coder/i,
    template: { family: 'deepseek', prompt: (p, s) => `<｜fim▁begin｜>${p}<｜fim▁hole｜>${s}<｜fim▁end｜>`, stop: ['<｜fim▁begin｜>', '<｜fim▁hole｜>', '<｜fim▁end｜>', '<｜end▁of▁sentence｜>', '<|EOT|>'] },
  },
  {
    match: /starcoder|stable-?code|granite.*code/i,
    template: { family: 'starcoder', prompt: (p, s) => `<fim_prefix>${p}<fim_suffix>${s}<fim_middle>`, stop: ['<|endoftext|>', '<fim_prefix>', '<fim_suffix>', '<fim_middle>', '<file_sep>'] },
  },
  {
    match: /codestral/i,
    template: { family: 'codestral', prompt: (p, s) => `[SUFFIX]${s}[PREFIX]${p}`, stop: ['[PREFIX]', '[SUFFIX]', '</s>'] },
  },
  {
    match: /codellama|code-llama/i,
    template: { family: 'codellama', prompt: (p, s) => `<PRE> ${p} <SUF>${s} <MID>`, stop: ['<PRE>', '<SUF>', '<MID>', '<EOT>', '</s>'] },
  },
  {
    match: /codegemma/i,
    template: { family: 'codegemma', prompt: (p, s) => `<|fim_prefix|>${p}<|fim_suffix|>${s}<|fim_middle|>`, stop: ['<|fim_prefix|>', '<|fim_suffix|>', '<|fim_middle|>', '<|file_separator|>', '<end_of_turn>', '<eos>'] },
  },
];

export function fimTemplateFor(modelId: string): FimTemplate | undefined {
  return TEMPLATES.find((t) => t.match.test(modelId))?.template;
}

/** Every special token any template uses: a chat model or a sloppy server may leak them into text. */
export const ALL_SPECIAL_TOKENS: string[] = [...new Set(TEMPLATES.flatMap((t) => t.template.stop))];
