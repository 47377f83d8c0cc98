import { badRequest } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';

const NAME = /^[A-Za-z0-9._:-]+$/;

/** A secret name: letters, digits, dot, underscore, dash and colon; never a path or a blank. */
export function validSecretName(name: unknown): string {
  if (typeof name !== 'string' || !name) throw badRequest('name is required: letters, digits and . _ - : only');
  if (name.length > LIMITS.secretNameChars) throw badRequest(`name is longer than ${LIMITS.secretNameChars} characters; use a shorter one`);
  if (!NAME.test(name)) throw badRequest(`name "${name.slice(0, 40)}" may hold only letters, digits and . _ - :`);
  return name;
}

export function validSecretValue(value: unknown): string {
  if (typeof value !== 'string' || value === '') throw badRequest('value is required and must be a non-empty string');
  if (Buffer.byteLength(value) > LIMITS.secretValueBytes) throw badRequest(`value is larger than ${LIMITS.secretValueBytes / 1024} KB; a secret is a key or token, not a file`);
  return value;
}
