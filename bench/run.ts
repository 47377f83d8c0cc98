/**
 * `npm run bench`: runs every bench/*.bench.ts in turn, each in its own process (so one cannot warm
 * or load the next), shows their output, and ends with every RESULT line together.
 * `npm run bench -- fanout` runs only the files whose name contains "fanout".
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
const filter = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => !filter.length || filter.some((x) => f.includes(x)))
  .sort();

const results: string[] = [];
let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file}`);
  const code = await new Promise<number>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(dir, file)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let rest = '';
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      rest += chunk.toString('utf8');
      const lines = rest.split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) if (line.startsWith('RESULT ')) results.push(line);
    });
    child.on('exit', (c) => {
      if (rest.startsWith('RESULT ')) results.push(rest);
      resolve(c ?? 1);
    });
  });
  if (code !== 0) {
    failed++;
    results.push(`RESULT ${file}: did not finish (exit ${code})`);
  }
}
console.log('\n=== results');
for (const line of results) console.log(line);
process.exit(failed ? 1 : 0);
