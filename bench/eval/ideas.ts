/**
 * Ideas tried on the evaluation (issue #13, item 4), one row each in EVAL.md: what was measured before and after
 * (with `npm run eval`, the figures of that run) and whether the change was kept. Kept only if it helps.
 */
export interface Idea {
  idea: string;
  area: 'retrieval' | 'history filter';
  before: string;
  after: string;
  kept: boolean;
  note?: string;
}

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
    note: 'kept 0.7 (best recall@1; within 0.01 elsewhere); 0.3 with neural embeddings (not measurable here)',
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
];
