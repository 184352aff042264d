/**
 * `npm run bench`: every benchmark section in this folder (each file but
 * this one exports `run()`, returning its report as text), one after the
 * other. Run `npm run build` first: sections use the compiled sources.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const sections = readdirSync(here)
  .filter((f) => f.endsWith('.js') && f !== 'run.js')
  .sort();

for (const file of sections) {
  const mod = await import(pathToFileURL(join(here, file)).href);
  if (typeof mod.run !== 'function') continue;
  process.stdout.write(`== ${file}\n${await mod.run()}\n\n`);
}
