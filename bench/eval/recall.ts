import { CATEGORY_NAMES, type Question, SCORED_CATEGORIES } from './dataset.ts';

export const RECALL_KS = [1, 5, 10] as const;

/** recall@k: the share of the evidence turns among the first k results (a result named twice counts once). */
export function recallAt(evidence: readonly string[], ranked: readonly string[], k: number): number {
  const top = new Set(ranked.slice(0, k));
  return evidence.filter((id) => top.has(id)).length / evidence.length;
}

/** recall@1/5/10 averaged over questions. */
export interface RecallRow {
  questions: number;
  r1: number;
  r5: number;
  r10: number;
}

export interface RecallTable {
  overall: RecallRow;
  /** By LoCoMo category name. */
  byCategory: Record<string, RecallRow>;
}

const mean = (values: number[]) =>
  values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;

function rowOf(ranked: { question: Question; ids: string[] }[]): RecallRow {
  const at = (k: number) => mean(ranked.map(({ question, ids }) => recallAt(question.evidence, ids, k)));
  return { questions: ranked.length, r1: at(1), r5: at(5), r10: at(10) };
}

/** Recall per category and overall, from each question's ranked turn ids. */
export function recallTable(ranked: { question: Question; ids: string[] }[]): RecallTable {
  const byCategory: Record<string, RecallRow> = {};
  for (const category of SCORED_CATEGORIES) {
    const rows = ranked.filter(({ question }) => question.category === category);
    if (rows.length > 0) byCategory[CATEGORY_NAMES[category] as string] = rowOf(rows);
  }
  return { overall: rowOf(ranked), byCategory };
}
