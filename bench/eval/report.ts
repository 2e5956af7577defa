import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LEXICAL_RELEVANCE_FLOOR } from '@memgate/adapters';
import type { Machine } from '../lib/machine.ts';
import { type BenchTargets, benchTargetLines } from './bench-targets.ts';
import { floorMarkdown } from './floor.ts';
import type { HistoryResult, HistoryRow } from './history.ts';
import type { Idea } from './ideas.ts';
import { LEXICAL_CEILING } from './ideas-scoring.ts';
import type { RecallRow } from './recall.ts';
import type { RetrievalResult } from './retrieval.ts';

export interface EvalReport {
  mode: 'full' | 'quick';
  startedAt: string;
  seconds: number;
  machine: Machine;
  /** Server configuration added for this run (`--set KEY=VALUE`); empty for the defaults. */
  settings: Record<string, string>;
  data: { file: string; conversations: string[]; questions: number; historyQuestions: number };
  retrieval?: RetrievalResult;
  history?: HistoryResult;
  ideas: Idea[];
  /** The bench's figures for the issue's no-regression targets (bench/results.json), when a run is committed. */
  bench?: BenchTargets;
}

const f3 = (value: number) => (Number.isFinite(value) ? value.toFixed(3) : 'n/a');
const pct = (value: number) => `${(value * 100).toFixed(1)}%`;

function retrievalTable(result: RetrievalResult): string[] {
  const systems = [
    ['memgate', result.memgate],
    ['BM25', result.bm25],
    ['stemmed BM25', result.stemmedBm25],
  ] as const;
  const groups = ['overall', ...Object.keys(result.memgate.byCategory)];
  const rowOf = (table: (typeof systems)[number][1], group: string): RecallRow | undefined =>
    group === 'overall' ? table.overall : table.byCategory[group];
  const lines = [
    '| | questions | memgate r@1 | r@5 | r@10 | BM25 r@1 | r@5 | r@10 | stemmed BM25 r@1 | r@5 | r@10 |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const group of groups) {
    const cells = systems.flatMap(([, table]) => {
      const row = rowOf(table, group);
      return row ? [f3(row.r1), f3(row.r5), f3(row.r10)] : ['', '', ''];
    });
    const label = group === 'overall' ? '**overall**' : group;
    lines.push(`| ${label} | ${rowOf(result.memgate, group)?.questions ?? 0} | ${cells.join(' | ')} |`);
  }
  return lines;
}

/** Overall recall on each half of the conversations: what a setting chosen on one half does on the other. */
function halvesTable(result: RetrievalResult): string[] {
  if (!result.halves) return [];
  const cells = (row: RecallRow) => `${f3(row.r1)} | ${f3(row.r5)} | ${f3(row.r10)}`;
  return [
    'By half of the conversations (settings are chosen on one half and checked on the other, "Ideas tried"), then by ' +
      'conversation:',
    '',
    '| conversations | questions | memgate r@1 | r@5 | r@10 | stemmed BM25 r@1 | r@5 | r@10 |',
    '|---|---|---|---|---|---|---|---|',
    ...[...result.halves, ...(result.byConversation ?? [])].map(
      (half) =>
        `| ${half.conversations.join(', ')} | ${half.memgate.questions} | ${cells(half.memgate)} | ${cells(half.stemmedBm25)} |`,
    ),
    '',
  ];
}

function historyTable(result: HistoryResult): string[] {
  const line = (name: string, row: HistoryRow) => `| ${name} | ${f3(row.evidenceKept)} | ${pct(row.size)} |`;
  return [
    '| | evidence kept | size (forwarded / history chars) |',
    '|---|---|---|',
    line('memgate history filter', result.memgate),
    line('recency truncation, same chars', result.recency),
    line('stemmed BM25 best turns, same chars', result.stemmedBm25),
  ];
}

/** The issue's targets (#13), judged on this run's figures. */
function targetLines(report: EvalReport): string[] {
  const lines: string[] = [];
  const mark = (pass: boolean) => (pass ? 'met' : '**not met**');
  const { retrieval, history } = report;
  if (retrieval) {
    const { overall } = retrieval.memgate;
    lines.push(`- recall@5 ≥ 0.65: ${f3(overall.r5)}, ${mark(overall.r5 >= 0.65)}`);
    lines.push(`- recall@10 ≥ 0.75: ${f3(overall.r10)}, ${mark(overall.r10 >= 0.75)}`);
    const behind = Object.entries(retrieval.memgate.byCategory).flatMap(([category, row]) => {
      const peer = retrieval.stemmedBm25.byCategory[category];
      if (!peer) return [];
      return (['r1', 'r5', 'r10'] as const)
        .filter((k) => row[k] < peer[k])
        .map((k) => `${category} ${k.replace('r', 'r@')} ${f3(row[k])} < ${f3(peer[k])}`);
    });
    lines.push(
      `- at least stemmed BM25 in every category: ${behind.length === 0 ? 'met' : `**not met** (${behind.join('; ')})`}`,
    );
  }
  if (history) {
    const pass = history.memgate.evidenceKept >= 0.9 && history.memgate.size <= 0.3;
    lines.push(
      `- history filter evidence kept ≥ 0.90 at ≤ 30% of the characters: ${f3(history.memgate.evidenceKept)} at ` +
        `${pct(history.memgate.size)}, ${mark(pass)}`,
    );
  }
  return lines;
}

export function renderEvalMarkdown(report: EvalReport): string {
  const { machine } = report;
  const settings = Object.entries(report.settings);
  const out = [
    '# memgate evaluation on LoCoMo (development split)',
    '',
    `Written by \`npm run eval${report.mode === 'quick' ? ' -- --quick' : ''}\` on ${report.startedAt.slice(0, 10)} ` +
      `(${report.seconds.toFixed(0)} s), commit ${machine.commit}${machine.dirty ? ' (with uncommitted changes)' : ''}; ` +
      `${machine.cpu}, ${machine.cores} cores, Node ${machine.node}. The procedure is the data's README ` +
      '(`../shared/data/locomo/README.md`); bench/eval/ implements it over HTTP against the local server with its ' +
      'default configuration (lexical embedder, no model)' +
      (settings.length ? `, plus ${settings.map(([key, value]) => `\`${key}=${value}\``).join(', ')}` : '') +
      '.',
    '',
    `Data: ${report.data.conversations.join(', ')}; ${report.data.questions} questions of categories 1-4 with ` +
      'evidence in the conversation.',
    '',
  ];
  const targets = targetLines(report);
  if (targets.length > 0) out.push('## Targets (issue #13)', '', ...targets, '');
  if (report.bench)
    out.push('## No regressions in the benchmarks (issue #13)', '', ...benchTargetLines(report.bench), '');
  if (report.retrieval) {
    out.push(
      '## Retrieval',
      '',
      'Each turn one document, one user per conversation; each question searched over the whole band with top_k 10. ' +
        'recall@k = share of the evidence turns among the first k results, averaged over questions. Peers: minisearch ' +
        'BM25 with its defaults, and with stop words dropped (`stopword` English) and Porter stemming (`stemmer`).',
      '',
      ...retrievalTable(report.retrieval),
      '',
      ...halvesTable(report.retrieval),
    );
    if (report.retrieval.floor) {
      const chosen = Number(report.settings.PROXY_CONTEXT_MIN_SIMILARITY ?? LEXICAL_RELEVANCE_FLOOR);
      out.push('## Context floor', '', ...floorMarkdown(report.retrieval.floor, chosen), '');
    }
  }
  if (report.history) {
    out.push(
      '## History filter',
      '',
      `${report.history.questions} questions (spread evenly over each conversation): the whole conversation sent to ` +
        'route A as chat history, the question last, `x-memgate-context: off`, `x-memgate-store: off`. Evidence kept = ' +
        'share of evidence turns among the forwarded messages; size = forwarded history characters over the ' +
        "history's, both averaged over questions. The peers get, per question, the characters memgate forwarded.",
      '',
      ...historyTable(report.history),
      '',
    );
  }
  out.push('## Ideas tried', '', LEXICAL_CEILING, '');
  if (report.ideas.length === 0) out.push('None yet.', '');
  else {
    out.push('| idea | area | before | after | kept |', '|---|---|---|---|---|');
    for (const idea of report.ideas) {
      const note = idea.note ? ` (${idea.note})` : '';
      out.push(`| ${idea.idea}${note} | ${idea.area} | ${idea.before} | ${idea.after} | ${idea.kept ? 'yes' : 'no'} |`);
    }
    out.push('');
  }
  return `${out.join('\n')}`;
}

const rounded = (value: unknown): unknown => {
  if (typeof value === 'number') return Math.round(value * 10_000) / 10_000;
  if (Array.isArray(value)) return value.map(rounded);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, rounded(inner)]));
  }
  return value;
};

/** Writes EVAL.md and eval.json into `dir`; returns their paths. */
export function writeEvalReport(dir: string, report: EvalReport): string[] {
  const paths = [join(dir, 'EVAL.md'), join(dir, 'eval.json')];
  writeFileSync(paths[0] as string, renderEvalMarkdown(report));
  writeFileSync(paths[1] as string, `${JSON.stringify(rounded(report), null, 2)}\n`);
  return paths;
}
