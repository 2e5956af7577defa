import MiniSearch from 'minisearch';
import { stemmer } from 'stemmer';
import { eng } from 'stopword';
import type { Turn } from './dataset.ts';

/** A keyword index over one conversation's turns: the peers the README's procedure names. */
export interface TurnRanker {
  name: string;
  /** Turn ids, best first, at most `limit`. */
  rank(query: string, limit: number): string[];
}

const stopWords = new Set(eng);

/** Lower-cased, English stop words dropped, Porter-stemmed: for indexing and for queries alike. */
function stemmedTerm(term: string): string | null {
  const lower = term.toLowerCase();
  return stopWords.has(lower) ? null : stemmer(lower);
}

function rankerOf(name: string, turns: readonly Turn[], options: { processTerm?: (term: string) => string | null }) {
  const index = new MiniSearch<Turn>({ fields: ['content'], idField: 'id', ...options });
  index.addAll(turns as Turn[]);
  return {
    name,
    rank: (query: string, limit: number) =>
      index
        .search(query)
        .slice(0, limit)
        .map((hit) => String(hit.id)),
  };
}

/** minisearch with its default options (BM25+, lower-cased words). */
export const bm25Ranker = (turns: readonly Turn[]): TurnRanker => rankerOf('BM25', turns, {});

/** minisearch with stop words dropped and Porter stemming, for indexing and queries. */
export const stemmedBm25Ranker = (turns: readonly Turn[]): TurnRanker =>
  rankerOf('stemmed BM25', turns, { processTerm: stemmedTerm });
