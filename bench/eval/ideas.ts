import { FLOOR_IDEAS } from './ideas-floor.ts';
import { RECALL_IDEAS } from './ideas-recall.ts';
import { SCORING_IDEAS } from './ideas-scoring.ts';

/**
 * Ideas tried on the evaluation (issue #13, item 4), one row each in EVAL.md: what was measured before and after
 * (with `npm run eval`, the figures of that run) and whether the change was kept. Kept only if it helps.
 */
export interface Idea {
  idea: string;
  area: 'retrieval' | 'history filter' | 'context floor';
  before: string;
  after: string;
  kept: boolean;
  note?: string;
}

// History filter rows: "at 28%" figures rank each question's older turns and keep the best within 28% of the
// history's characters (the 4 recent turns included), in-process on the same 200 questions; "min" figures run the
// filter itself with that PROXY_HISTORY_MIN_SIMILARITY and the 8000-token budget (in-process, or with
// `npm run eval -- --only=history --set PROXY_HISTORY_MIN_SIMILARITY=…`: both agree where both were run).
const BEFORE_HISTORY = 'dense (lexical embedder) only, min 0.12: 0.792 kept at 28.6%';

// Retrieval figures are recall@1/5/10 over the 760 questions. "npm run eval" rows ran `npm run eval -- --only=retrieval
// [--set ...]`; "in-process" rows ran the same procedure through the context store without HTTP (a script not kept),
// where a full eval per variant did not fit the time.
export const IDEAS: Idea[] = [
  {
    idea: 'Hybrid retrieval: a BM25+ lexical index (stemmed, stop words dropped) beside the dense one, score (1 − w) · cosine + w · lexical',
    area: 'retrieval',
    before: 'dense only (lexical embedder): 0.191 / 0.337 / 0.406',
    after: 'w 0.7, no neighbours: 0.356 / 0.560 / 0.627 (in-process; the default run matched npm run eval exactly)',
    kept: true,
    note: 'about stemmed BM25 (0.349 / 0.552 / 0.621); the dense half adds little with the lexical embedder',
  },
  {
    idea: "Neighbour context: each chunk's terms plus those of the 2 chunks on each side in the same add, at weight 0.3",
    area: 'retrieval',
    before: '0.356 / 0.560 / 0.627 (in-process)',
    after: '0.363 / 0.651 / 0.743 (npm run eval)',
    kept: true,
    note: 'span 3 or weight 0.5 no better; a separate window field (own and window scores mixed) 0.624 / 0.708 at best',
  },
  {
    idea: "A chunk matches only by its own terms; its neighbours' strengthen the match",
    area: 'retrieval',
    before: '0.363 / 0.651 / 0.743 (npm run eval)',
    after: '0.360 / 0.648 / 0.730 (npm run eval)',
    kept: true,
    note: 'costs 0.01 recall@10 but keeps unrelated documents added together from matching each other (help-desk set: ~0.3 → 0)',
  },
  {
    idea: 'Lexical weight w',
    area: 'retrieval',
    before: 'w 0.7: 0.360 / 0.648 / 0.730',
    after: 'w 1.0: 0.349 / 0.652 / 0.737; w 0.5: 0.344 / 0.612 / 0.704 (npm run eval)',
    kept: true,
    note: 'kept 0.7 then (best recall@1; within 0.01 elsewhere), 0.8 since neighbours before a chunk count more (below); 0.3 with neural embeddings (not measurable here)',
  },
  {
    idea: 'Irregular English forms mapped before stemming (went → go, children → child)',
    area: 'retrieval',
    before: '0.357 / 0.651 / 0.739 (in-process)',
    after: '0.362 / 0.656 / 0.742 (in-process)',
    kept: true,
  },
  {
    idea: 'BM25+ (δ 0.5, b 0.7) instead of BM25 (b 0.75)',
    area: 'retrieval',
    before: '0.323 / 0.533 / 0.604 (in-process, no neighbours)',
    after: '0.346 / 0.550 / 0.619',
    kept: true,
  },
  {
    idea: 'Pseudo-relevance feedback: the 5 best terms of the 3 best turns added to the query',
    area: 'retrieval',
    before: '0.357 / 0.651 / 0.739 (in-process)',
    after: '0.350 / 0.634 / 0.731',
    kept: false,
  },
  {
    idea: "Dense half over each turn's window (its text and its neighbours') instead of the turn alone",
    area: 'retrieval',
    before: '0.357 / 0.651 / 0.739 (in-process)',
    after: '0.348 / 0.649 / 0.740',
    kept: false,
  },
  {
    idea: "Stemmed BM25 over the request's own messages instead of the embedding",
    area: 'history filter',
    before: 'dense only, at 28%: 0.791',
    after: 'at 28%: 0.832',
    kept: false,
    note: 'superseded by the rows below',
  },
  {
    idea: 'Fuse BM25 (max-normalised) with the dense similarity, 0.5 each',
    area: 'history filter',
    before: 'at 28%: 0.832',
    after: 'at 28%: 0.851',
    kept: false,
    note: 'superseded by the rows below',
  },
  {
    idea: "Neighbour scores: a turn scores at least 0.5 × its neighbour's score",
    area: 'history filter',
    before: 'at 28%: 0.851',
    after: 'at 28%: 0.868',
    kept: false,
    note: 'term windows below do better; on top of them it adds under 0.005',
  },
  {
    idea: "Neighbour term windows as in search's index (span 2, weight 0.3), BM25+ divided by its ceiling, fused as search (lexical 0.7)",
    area: 'history filter',
    before: BEFORE_HISTORY,
    after: 'min 0.055: 0.901 at 28.7%; min 0.065: 0.891 at 24.6%',
    kept: false,
    note: 'the next row, wider and lighter, is better on chat turns',
  },
  {
    idea: 'Window span 4, weight 0.2 for chat history',
    area: 'history filter',
    before: BEFORE_HISTORY,
    after: 'min 0.065: 0.912 at 27.2% (0.07: 0.908 at 25.5%; 0.12: 0.884 at 13.3%)',
    kept: false,
    note: 'in a short history every message lies within 4 of a relevant one and borrows its words: an unrelated question two turns before a relevant one was kept (test/proxy/switches.test.ts)',
  },
  {
    idea: 'As search: a message matches only by a word of its own, its neighbours strengthen the match (window 4, 0.2)',
    area: 'history filter',
    before: BEFORE_HISTORY,
    after: 'min 0.065: 0.903 at 25.4%; min 0.08: 0.896 at 20.8%',
    kept: false,
    note: 'the next row adds the replies back',
  },
  {
    idea: 'Plus: a message scores at least half of the message before or after it (the reply to a relevant turn)',
    area: 'history filter',
    before: BEFORE_HISTORY,
    after: 'min 0.065: 0.911 at 27.2%; 0.07: 0.906 at 25.4%; 0.08: 0.905 at 22.2%',
    kept: true,
    note: 'an unrelated question before a relevant exchange is dropped; the floor is 0.055 since the lexical weight is 0.8 (below)',
  },
  {
    idea: 'Lexical weight 1.0 or 0.85 instead of 0.7 (span 2, weight 0.3)',
    area: 'history filter',
    before: 'lexical 0.7, min 0.05: 0.904 at 31.1%',
    after: '1.0, min 0.03: 0.896 at 27.6%; 0.85, min 0.05: 0.894 at 25.4%',
    kept: false,
    note: "no gain: search's weight kept, one relevance for both",
  },
  {
    idea: 'Pseudo-relevance feedback: the best 3-10 turns lend 5-10 terms to the question (weight 0.2-0.5)',
    area: 'history filter',
    before: 'at 25%: 0.904',
    after: 'at 25%: 0.901-0.908',
    kept: false,
    note: 'within noise, one more pass',
  },
  ...SCORING_IDEAS,
  ...FLOOR_IDEAS,
  ...RECALL_IDEAS,
];
