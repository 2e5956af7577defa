import type { Conversation, Question } from './dataset.ts';
import { type FloorResult, floorTable, type ScoredHit, type ScoredSearch } from './floor.ts';
import { bm25Ranker, stemmedBm25Ranker, type TurnRanker } from './peers.ts';
import { type RecallRow, type RecallTable, recallTable } from './recall.ts';
import { type EvalTarget, mapLimited, post, userOf } from './target.ts';

export const TOP_K = 10;
const ADD_BATCH = 100;

export interface RetrievalResult {
  memgate: RecallTable;
  bm25: RecallTable;
  stemmedBm25: RecallTable;
  /**
   * The same recall over each half of the conversations (the first 60%, the rest): settings chosen on one half
   * should help on the other too (EVAL.md, "Ideas tried"). Absent with fewer than 2 conversations.
   */
  halves?: RetrievalHalf[];
  /** The same for each conversation alone: a gain should hold on each, not only overall. */
  byConversation?: RetrievalHalf[];
  /** What each context floor would inject (floor.ts). Absent with fewer than 2 conversations. */
  floor?: FloorResult;
}

export interface RetrievalHalf {
  conversations: string[];
  memgate: RecallRow;
  stemmedBm25: RecallRow;
}

interface Ranked {
  question: Question;
  ids: string[];
}

/** Adds every turn of the conversation as one document (fileName = its id) in the conversation's own user. */
async function addTurns(target: EvalTarget, conversation: Conversation): Promise<void> {
  const user = userOf(conversation.id);
  for (let start = 0; start < conversation.turns.length; start += ADD_BATCH) {
    const documents = conversation.turns
      .slice(start, start + ADD_BATCH)
      .map((turn) => ({ fileName: turn.id, content: turn.content }));
    await post(target, '/api/v1/context/add', user, { documents, source: 'locomo' }, 201);
  }
}

/** The question searched in `conversation`'s memory over the whole band, top 10: the turns found, best first. */
async function searchTurns(target: EvalTarget, conversation: Conversation, question: Question): Promise<ScoredHit[]> {
  const { results } = await post<{ results: ScoredHit[] }>(
    target,
    '/api/v1/context/search',
    userOf(conversation.id),
    { query: question.question, minimum_similarity_threshold: 0, similarity_threshold: 1, top_k: TOP_K },
    202,
  );
  return results.map(({ fileName, score }) => ({ fileName, score }));
}

/** Ids of the turns found, best first, each once. */
const idsOf = (hits: readonly ScoredHit[]) => [...new Set(hits.map((hit) => hit.fileName))];

const rankWith = (ranker: TurnRanker, questions: readonly Question[]): Ranked[] =>
  questions.map((question) => ({ question, ids: ranker.rank(question.question, TOP_K) }));

/** The README's retrieval procedure: memgate over HTTP and both BM25 peers on the same turns and questions. */
export async function evaluateRetrieval(
  target: EvalTarget,
  conversations: readonly Conversation[],
  { concurrency = 4, onProgress = (_: string) => {} } = {},
): Promise<RetrievalResult> {
  const memgate: Ranked[] = [];
  const scored: ScoredSearch[] = [];
  const bm25: Ranked[] = [];
  const stemmed: Ranked[] = [];
  for (const conversation of conversations) {
    await addTurns(target, conversation);
    const found = await mapLimited(conversation.questions, concurrency, (question) =>
      searchTurns(target, conversation, question),
    );
    const searches = conversation.questions.map((question, index) => ({ question, hits: found[index] ?? [] }));
    scored.push(...searches);
    memgate.push(...searches.map(({ question, hits }) => ({ question, ids: idsOf(hits) })));
    bm25.push(...rankWith(bm25Ranker(conversation.turns), conversation.questions));
    stemmed.push(...rankWith(stemmedBm25Ranker(conversation.turns), conversation.questions));
    onProgress(
      `retrieval: ${conversation.id}: ${conversation.turns.length} turns, ${conversation.questions.length} questions`,
    );
  }
  const result: RetrievalResult = {
    memgate: recallTable(memgate),
    bm25: recallTable(bm25),
    stemmedBm25: recallTable(stemmed),
  };
  if (conversations.length >= 2) {
    // Questions were pushed conversation by conversation: the first half's are the first `asked` of each list.
    const cut = Math.min(conversations.length - 1, Math.ceil(conversations.length * 0.6));
    const asked = conversations.slice(0, cut).reduce((sum, conversation) => sum + conversation.questions.length, 0);
    const halfOf = (from: number, to: number, questions: [number, number]) => ({
      conversations: conversations.slice(from, to).map((conversation) => conversation.id),
      memgate: recallTable(memgate.slice(...questions)).overall,
      stemmedBm25: recallTable(stemmed.slice(...questions)).overall,
    });
    result.halves = [halfOf(0, cut, [0, asked]), halfOf(cut, conversations.length, [asked, memgate.length])];
    let start = 0;
    result.byConversation = conversations.map((conversation, index) => {
      start += conversation.questions.length;
      return halfOf(index, index + 1, [start - conversation.questions.length, start]);
    });
    result.floor = floorTable(scored, await unrelatedSearches(target, conversations, concurrency));
    onProgress(`retrieval: each conversation's questions searched in the next conversation's memory`);
  }
  return result;
}

/** Each conversation's questions searched in the next conversation's memory, where nothing answers them. */
async function unrelatedSearches(
  target: EvalTarget,
  conversations: readonly Conversation[],
  concurrency: number,
): Promise<ScoredSearch[]> {
  const searches: ScoredSearch[] = [];
  for (const [index, conversation] of conversations.entries()) {
    const other = conversations[(index + 1) % conversations.length] as Conversation;
    const found = await mapLimited(conversation.questions, concurrency, (question) =>
      searchTurns(target, other, question),
    );
    searches.push(...conversation.questions.map((question, at) => ({ question, hits: found[at] ?? [] })));
  }
  return searches;
}
