import type { Idea } from './ideas.ts';

// Third round (issue #13): the context floor on the hybrid score, and what changed the score's scale. Retrieval
// figures as in ideas-scoring.ts: recall@1/5/10 over the 760 questions, then over conversations 0–2 and 3–4.
const BEFORE = '0.366 / 0.657 / 0.749 (0–2: 0.377 / 0.672 / 0.756; 3–4: 0.354 / 0.641 / 0.742)';
const FRACTIONAL = '0.369 / 0.655 / 0.748 (0–2: 0.378 / 0.669 / 0.755; 3–4: 0.360 / 0.642 / 0.740)';
const COORDINATED = '0.391 / 0.662 / 0.746 (0–2: 0.398 / 0.676 / 0.751; 3–4: 0.384 / 0.649 / 0.742)';
/** Per conversation (conv-26, -30, -41, -42, -43), recall@10 against FRACTIONAL, in-process. */
const perConversation = (deltas: string) => `recall@10 by conversation ${deltas}`;

export const FLOOR_IDEAS: Idea[] = [
  {
    idea: 'Document frequency: a chunk holding a term only through its neighbours counts their weighted frequency, at most 1 (it counted 1)',
    area: 'retrieval',
    before: BEFORE,
    after: `${FRACTIONAL} (npm run eval -- --only=retrieval)`,
    kept: true,
    note:
      'five help-desk documents added in one request (test/context-floor.test.ts): every term of one document counted ' +
      'as held by all five, so the record answering "How do I enable two-factor authentication?" scored 0.095, under ' +
      'the context floor (0.235 now, 0.342 added one by one); counting own occurrences only: 0.372 / 0.654 / 0.742 ' +
      '(in-process)',
  },
  {
    idea: 'Context floor PROXY_CONTEXT_MIN_SIMILARITY measured on the hybrid score (section "Context floor")',
    area: 'context floor',
    before: '0.12, chosen on the dense lexical cosine before hybrid retrieval',
    after:
      'with the coordination (below): 0.1 injects 0.654 of the evidence turns (0.662 with no floor) and gives context ' +
      'to 38% of unrelated questions; 0.12: 0.632, 22%; 0.08: 0.661, 61% (before the coordination, 0.12: 0.646 of ' +
      '0.655, 44%; 0.10: 0.653, 64%)',
    kept: true,
    note: 'the default is now 0.1: the highest floor that loses under 0.01 of the evidence the first 5 results hold',
  },
  {
    idea: 'Query terms no chunk holds weigh in the lexical ceiling as the rarest term of the query some chunk holds (not as the rarest possible)',
    area: 'context floor',
    before:
      'help-desk set: chatty questions ("Hey, I was wondering what your refund policy is, could you explain it to me?") ' +
      'score 0.079 and 0.080 against their answer, "Tell me a joke about cats" 0.093; LoCoMo ' +
      `${FRACTIONAL.slice(0, 21)}, unrelated questions' best score median 0.114`,
    after:
      '0.158 and 0.144, but 0.155 for the joke (matched by "telling" alone); LoCoMo 0.370 / 0.654 / 0.750, unrelated ' +
      'median 0.149: at 0.15 it still gives context to 49% of unrelated questions (0.641 of the evidence) where 0.12 ' +
      'without it gives 44% (0.646)',
    kept: false,
    note: 'in a small corpus a filler word is as rare as a topic word, so relevant and unrelated rise together',
  },
  {
    idea: "History filter: the same document frequency as search's (a message holding a term only through its neighbours counts their weight, at most 1), floor 0.07",
    area: 'history filter',
    before: 'min 0.055: 0.906 at 27.6%',
    after:
      'min 0.07: 0.908 at 26.8% (0.055: 0.910 at 30.5%; 0.06: 0.908 at 29.3%; 0.065: 0.908 at 28.1%; 0.08: 0.903 at 24.1%)',
    kept: true,
    note: 'one formula for search and the history filter; the floor became 0.06 with the coordination (below)',
  },
  {
    idea: "Coordination: the lexical match times the fourth root of the share of the query's terms a chunk holds in its own words",
    area: 'retrieval',
    before: FRACTIONAL,
    after: `${COORDINATED} (npm run eval -- --only=retrieval)`,
    kept: true,
    note:
      "a chunk holding the question's words itself ranks above one borrowing them from its neighbours; recall@1 " +
      'by conversation +0.003 / +0.029 / +0.033 / +0.013 / +0.035, recall@10 +0.002 / +0.012 / −0.020 / −0.005 / ' +
      '+0.008; multi-hop reaches stemmed BM25 at 1/5/10; square root 0.392 / 0.660 / 0.734, the plain share ' +
      "(Lucene's classic coord) 0.387 / 0.647 / 0.715, over the terms its neighbours lend too 0.350 / 0.644 / 0.738 " +
      '(in-process)',
  },
  {
    idea: 'History filter with the same coordination (over the query terms the history holds)',
    area: 'history filter',
    before: 'min 0.07: 0.908 at 26.8%',
    after: 'min 0.06: 0.908 at 25.3% (0.05: 0.912 at 28.7%; 0.07: 0.906 at 22.1%; 0.08: 0.896 at 19.3%)',
    kept: true,
    note: 'floor 0.06 keeps a margin on the evidence target, which binds first',
  },
  {
    idea: 'BM25 b 0.75 (the textbook value) instead of 0.7',
    area: 'retrieval',
    before: FRACTIONAL,
    after: `0.368 / 0.655 / 0.744 (in-process), ${perConversation('+0.000 / +0.000 / −0.007 / −0.003 / −0.007')}`,
    kept: false,
  },
  {
    idea: "The peers' stop word list (`stopword` English, 3 times as long) instead of the short one",
    area: 'retrieval',
    before: FRACTIONAL,
    after: `0.367 / 0.654 / 0.745 (in-process), ${perConversation('+0.007 / −0.012 / −0.010 / −0.003 / −0.003')}`,
    kept: false,
  },
  {
    idea: "A chunk may match by its neighbours' words alone (211 of the 410 missed evidence turns share no word with the question)",
    area: 'retrieval',
    before: FRACTIONAL,
    after: `0.369 / 0.659 / 0.750 (in-process), ${perConversation('+0.014 / +0.000 / +0.000 / −0.003 / −0.001')}`,
    kept: false,
    note: 'one conversation gains; and unrelated documents added together would match each other again',
  },
  {
    idea: "BM25 length from a chunk's own words only (its neighbours' not counted)",
    area: 'retrieval',
    before: FRACTIONAL,
    after: '0.293 / 0.631 / 0.730 (in-process): recall@1 −0.04 to −0.10 on every conversation',
    kept: false,
  },
];
