import type { Question } from './dataset.ts';

/**
 * The context floor (PROXY_CONTEXT_MIN_SIMILARITY): what the proxy would inject and the chat cite at each floor.
 * Relevant: each question searched in its own conversation; evidence injected = share of its evidence turns among
 * the first PROXY_CONTEXT_TOP_K results that score at or above the floor. Unrelated: the same questions searched in
 * another conversation (other people, other lives, the same kind of chat), where nothing answers them; injected =
 * share of those questions with at least one record at or above the floor, and records = how many on average.
 */
export const CONTEXT_TOP_K = 5;
export const FLOORS = [0.03, 0.05, 0.06, 0.07, 0.08, 0.1, 0.12, 0.15, 0.2, 0.25] as const;

export interface ScoredHit {
  fileName: string;
  score: number;
}

export interface ScoredSearch {
  question: Question;
  /** Results best first (the search's top_k), with their scores. */
  hits: ScoredHit[];
}

export interface FloorRow {
  floor: number;
  /** Relevant questions: share of evidence turns injected (in the first CONTEXT_TOP_K and at or above the floor). */
  evidenceInjected: number;
  /** Relevant questions with at least one record injected. */
  relevantWithContext: number;
  /** Unrelated questions (another conversation's memory) with at least one record injected. */
  unrelatedWithContext: number;
  /** Records injected per unrelated question, on average (at most CONTEXT_TOP_K). */
  unrelatedRecords: number;
}

export interface FloorResult {
  topK: number;
  rows: FloorRow[];
  /** Scores of the evidence turns found in the first CONTEXT_TOP_K: quartiles (25th, 50th, 75th percentile). */
  evidenceScores: [number, number, number];
  /** Top scores of unrelated questions: quartiles and the 90th percentile. */
  unrelatedTopScores: [number, number, number, number];
  relevantQuestions: number;
  unrelatedQuestions: number;
}

const mean = (values: number[]) =>
  values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;

function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

const injected = (hits: readonly ScoredHit[], floor: number) =>
  hits.slice(0, CONTEXT_TOP_K).filter((hit) => hit.score >= floor);

/** What each floor would inject for relevant and unrelated questions. */
export function floorTable(
  relevant: readonly ScoredSearch[],
  unrelated: readonly ScoredSearch[],
  floors: readonly number[] = FLOORS,
): FloorResult {
  const rows = floors.map((floor) => ({
    floor,
    evidenceInjected: mean(
      relevant.map(({ question, hits }) => {
        const names = new Set(injected(hits, floor).map((hit) => hit.fileName));
        return question.evidence.filter((id) => names.has(id)).length / question.evidence.length;
      }),
    ),
    relevantWithContext: mean(relevant.map(({ hits }) => (injected(hits, floor).length > 0 ? 1 : 0))),
    unrelatedWithContext: mean(unrelated.map(({ hits }) => (injected(hits, floor).length > 0 ? 1 : 0))),
    unrelatedRecords: mean(unrelated.map(({ hits }) => injected(hits, floor).length)),
  }));
  const evidence = relevant.flatMap(({ question, hits }) =>
    hits
      .slice(0, CONTEXT_TOP_K)
      .filter((hit) => question.evidence.includes(hit.fileName))
      .map((hit) => hit.score),
  );
  const tops = unrelated.map(({ hits }) => hits[0]?.score ?? 0);
  return {
    topK: CONTEXT_TOP_K,
    rows,
    evidenceScores: [quantile(evidence, 0.25), quantile(evidence, 0.5), quantile(evidence, 0.75)],
    unrelatedTopScores: [quantile(tops, 0.25), quantile(tops, 0.5), quantile(tops, 0.75), quantile(tops, 0.9)],
    relevantQuestions: relevant.length,
    unrelatedQuestions: unrelated.length,
  };
}

const f3 = (value: number) => (Number.isFinite(value) ? value.toFixed(3) : 'n/a');

/** EVAL.md's section: one row per floor, the default (`chosen`) in bold. */
export function floorMarkdown(result: FloorResult, chosen: number): string[] {
  const [e25, e50, e75] = result.evidenceScores.map(f3);
  const [u25, u50, u75, u90] = result.unrelatedTopScores.map(f3);
  return [
    `Each question searched in its own conversation (relevant, ${result.relevantQuestions}) and in the next ` +
      `conversation's memory, where nothing answers it (unrelated, ${result.unrelatedQuestions}); the proxy injects ` +
      `(and the chat cites) the first ${result.topK} results scoring at least PROXY_CONTEXT_MIN_SIMILARITY. ` +
      `Scores of the evidence turns among the first ${result.topK}: quartiles ${e25} / ${e50} / ${e75}; ` +
      `unrelated questions' best score: quartiles ${u25} / ${u50} / ${u75}, 90th percentile ${u90}.`,
    '',
    '| floor | evidence injected | relevant questions with context | unrelated questions with context | records per unrelated question |',
    '|---|---|---|---|---|',
    ...result.rows.map((row) => {
      const floor = row.floor === chosen ? `**${row.floor} (default)**` : String(row.floor);
      return `| ${floor} | ${f3(row.evidenceInjected)} | ${f3(row.relevantWithContext)} | ${f3(row.unrelatedWithContext)} | ${row.unrelatedRecords.toFixed(2)} |`;
    }),
  ];
}
