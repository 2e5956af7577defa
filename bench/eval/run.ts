/**
 * `npm run eval`: the LoCoMo development split's procedure (../shared/data/locomo/README.md) over HTTP against the
 * local server, then bench/EVAL.md and bench/eval.json. Options:
 *   --quick                one conversation, 20 history questions (a few minutes); prints, writes nothing
 *   --only=retrieval|history
 *   --set KEY=VALUE        server configuration for this run (repeatable), e.g. to measure an idea; prints only
 *   --write                write the report even for a quick, partial or --set run
 * The data is CC BY-NC and never in the repository: without it, one line and exit 0.
 */
import { fileURLToPath } from 'node:url';
import { closeHttp } from '../lib/http.ts';
import { describeMachine } from '../lib/machine.ts';
import { readBenchTargets } from './bench-targets.ts';
import { loadConversations, locateLocomo } from './dataset.ts';
import { evaluateHistory } from './history.ts';
import { IDEAS } from './ideas.ts';
import { type EvalReport, renderEvalMarkdown, writeEvalReport } from './report.ts';
import { evaluateRetrieval } from './retrieval.ts';
import { startEvalServer } from './server.ts';

const log = (message: string) => process.stderr.write(`[eval ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

function settingsOf(argv: readonly string[]): Record<string, string> {
  const settings: Record<string, string> = {};
  argv.forEach((arg, index) => {
    const value = arg === '--set' ? argv[index + 1] : arg.startsWith('--set=') ? arg.slice('--set='.length) : undefined;
    if (value === undefined) return;
    const equals = value.indexOf('=');
    if (equals <= 0) throw new Error(`--set wants KEY=VALUE, got "${value}"`);
    settings[value.slice(0, equals)] = value.slice(equals + 1);
  });
  return settings;
}

async function main(argv: readonly string[]): Promise<void> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const file = locateLocomo(root);
  if (!file) {
    console.log('eval skipped: LoCoMo data not found (../shared/data/locomo/locomo-dev.json, or set LOCOMO_DATA)');
    return;
  }
  const quick = argv.includes('--quick');
  const only = argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
  const settings = settingsOf(argv);
  const write = argv.includes('--write') || (!quick && !only && Object.keys(settings).length === 0);
  const all = loadConversations(file);
  const conversations = quick ? all.slice(0, 1) : all;
  const perConversation = quick ? 20 : 40;
  const startedAt = new Date();
  const started = performance.now();
  const machine = describeMachine();
  log(`${quick ? 'quick' : 'full'} run over ${conversations.map((c) => c.id).join(', ')}; starting the local server`);
  const server = await startEvalServer(settings);
  const report: EvalReport = {
    mode: quick ? 'quick' : 'full',
    startedAt: startedAt.toISOString(),
    seconds: 0,
    machine,
    settings,
    data: {
      file: 'locomo-dev.json',
      conversations: conversations.map((conversation) => conversation.id),
      questions: conversations.reduce((sum, conversation) => sum + conversation.questions.length, 0),
      historyQuestions: 0,
    },
    ideas: IDEAS,
    bench: readBenchTargets(fileURLToPath(new URL('../results.json', import.meta.url))),
  };
  try {
    if (only !== 'history') report.retrieval = await evaluateRetrieval(server, conversations, { onProgress: log });
    if (only !== 'retrieval') {
      report.history = await evaluateHistory(server, conversations, { perConversation, onProgress: log });
      report.data.historyQuestions = report.history.questions;
    }
  } finally {
    await server.close();
    await closeHttp();
  }
  report.seconds = (performance.now() - started) / 1000;
  process.stdout.write(`${renderEvalMarkdown(report)}\n`);
  if (write)
    for (const path of writeEvalReport(fileURLToPath(new URL('..', import.meta.url)), report)) log(`wrote ${path}`);
}

await main(process.argv.slice(2));
process.exit(0);
