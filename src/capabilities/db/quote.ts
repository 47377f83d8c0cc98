/** Identifier quoting by each engine's rules. Values never go through here: they are always parameters. */
import { badRequest } from '../../kernel/errors.js';

const check = (name: string) => {
  if (typeof name !== 'string' || name === '' || name.includes('\u0000')) throw badRequest('an identifier must be a non-empty string without NUL characters');
  return name;
};

/** PostgreSQL and SQLite: "name", an embedded quote doubled. */
export const quoteDouble = (name: string): string => `"${check(name).replace(/"/g, '""')}"`;

/** MySQL and MariaDB: `name`, an embedded backtick doubled. */
export const quoteBacktick = (name: string): string => `\`${check(name).replace(/`/g, '``')}\``;
