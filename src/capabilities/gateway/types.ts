/** Shapes of the completions gateway (OpenAI chat-completions wire format) and its status. */

export type GatewayScope = 'local' | 'network';

/** What `api` holds in engine.config.json. */
export interface GatewayConfig {
  bind: GatewayScope;
}

export interface GatewayStatus {
  scope: GatewayScope;
  /** The port the gateway listens on (null while it is not listening, e.g. the port was taken). */
  port: number | null;
  /** The address it is bound to: 127.0.0.1 (local) or 0.0.0.0 (network). */
  host: string;
  listening: boolean;
  /** Why it is not listening, when it is not. */
  error?: string;
  /** A bearer key exists (its value is shown once, when minted). */
  hasKey: boolean;
  /** First 8 hex digits of the key's SHA-256, so a person can tell which key a client holds. */
  keyFingerprint: string | null;
  /** Completions served since the engine started (any outcome). */
  requestsServed: number;
}

/** One message of a chat-completions request, as clients send it (only what the gateway reads). */
export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content?: string | ContentPart[] | null;
  name?: string;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

export type ContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string; detail?: string } } | { type: string; [k: string]: unknown };

export interface ToolDefinition {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

export interface ChatCompletionRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  tool_choice?: ToolChoice;
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  stop?: string | string[] | null;
  presence_penalty?: number | null;
  frequency_penalty?: number | null;
  seed?: number | null;
  [other: string]: unknown;
}

/** OpenAI's usage block. */
export interface CompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
}
