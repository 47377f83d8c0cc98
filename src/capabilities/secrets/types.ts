/** The secret store other capabilities consume (types only). Values never leave through a route, event or log. */
export type SecretBackend = 'keychain' | 'file';

export interface SecretStore {
  /** Which backend holds the values; final once any method has resolved (a probe may be in flight before). */
  readonly backend: SecretBackend;
  get(name: string): Promise<string | undefined>;
  set(name: string, value: string): Promise<void>;
  delete(name: string): Promise<boolean>;
  names(): Promise<string[]>;
  /** Every stored value, for masking secret text before it reaches a prompt or a log line. */
  values(): Promise<string[]>;
}
