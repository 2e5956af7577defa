import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchReport } from './markdown.ts';
import { writeReport } from './write.ts';

// Rewrites RESULTS.md and the plots from results.json, after bench/OVER-BUDGET.md was edited, without measuring again:
// `npx tsx bench/report/render.ts`.
const dir = join(dirname(fileURLToPath(import.meta.url)), '..');
const report = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as BenchReport;
for (const path of writeReport(dir, report)) console.log(`wrote ${path}`);
