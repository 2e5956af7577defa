import type { Conversation, Question, Turn } from './dataset.ts';
import { stemmedBm25Ranker } from './peers.ts';
import { type EvalTarget, post, userOf } from './target.ts';

/** Evidence kept (share of evidence turns forwarded) and size (forwarded history chars / history chars), averaged. */
export interface HistoryRow {
  evidenceKept: number;
  size: number;
}

export interface HistoryResult {
  questions: number;
  memgate: HistoryRow;
  /** The most recent turns, as many as fit in memgate's forwarded characters for the same question. */
  recency: HistoryRow;
  /** Stemmed BM25's best-ranked turns, as many as fit in the same characters. */
  stemmedBm25: HistoryRow;
}

/** `count` questions spread evenly over the conversation (all when it has fewer). */
export function spreadQuestions(questions: readonly Question[], count: number): Question[] {
  if (questions.length <= count) return [...questions];
  return Array.from(
    { length: count },
    (_, index) => questions[Math.floor((index * questions.length) / count)] as Question,
  );
}

/**
 * Which turns the forwarded messages are: the filter never reorders, so each forwarded message is the next turn in
 * order with the same role and content.
 */
export function alignForwarded(
  turns: readonly Turn[],
  forwarded: readonly { role: string; content: string }[],
): Turn[] {
  const found: Turn[] = [];
  let at = 0;
  for (const message of forwarded) {
    while (at < turns.length) {
      const turn = turns[at] as Turn;
      at += 1;
      if (turn.content === message.content && (turn.speakerA ? 'user' : 'assistant') === message.role) {
        found.push(turn);
        break;
      }
    }
  }
  return found;
}

const chars = (turns: readonly Turn[]) => turns.reduce((sum, turn) => sum + turn.content.length, 0);
const share = (evidence: readonly string[], turns: readonly Turn[]) => {
  const ids = new Set(turns.map((turn) => turn.id));
  return evidence.filter((id) => ids.has(id)).length / evidence.length;
};

/**
 * Turns taken in `order` while they fit in `budget` characters: a ranking skips one that does not fit, recency
 * truncation stops there (it keeps a contiguous tail).
 */
function fill(order: readonly Turn[], budget: number, contiguous = false): Turn[] {
  const taken: Turn[] = [];
  let used = 0;
  for (const turn of order) {
    if (used + turn.content.length > budget) {
      if (contiguous) break;
      continue;
    }
    taken.push(turn);
    used += turn.content.length;
  }
  return taken;
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/**
 * The README's history procedure: the whole conversation as chat history (speaker A `user`, speaker B `assistant`)
 * and the question last, to route A with context and store off; what the upstream received is what the filter kept.
 */
export async function evaluateHistory(
  target: EvalTarget,
  conversations: readonly Conversation[],
  { perConversation, onProgress = (_: string) => {} }: { perConversation: number; onProgress?: (line: string) => void },
): Promise<HistoryResult> {
  const rows: { memgate: HistoryRow; recency: HistoryRow; stemmedBm25: HistoryRow }[] = [];
  for (const conversation of conversations) {
    const history = conversation.turns.map((turn) => ({
      role: turn.speakerA ? 'user' : 'assistant',
      content: turn.content,
    }));
    const total = chars(conversation.turns);
    const ranker = stemmedBm25Ranker(conversation.turns);
    const byId = new Map(conversation.turns.map((turn) => [turn.id, turn]));
    const newestFirst = [...conversation.turns].reverse();
    for (const question of spreadQuestions(conversation.questions, perConversation)) {
      const proxyPath = `/api/v1/proxy/${encodeURIComponent(target.upstreamUrl)}/eval-target-key/chat/completions`;
      await post(
        target,
        proxyPath,
        userOf(conversation.id),
        { model: 'eval-model', messages: [...history, { role: 'user', content: question.question }] },
        200,
        { 'x-memgate-context': 'off', 'x-memgate-store': 'off' },
      );
      // The question itself is the last message; what came before it is the history the filter chose from.
      const kept = alignForwarded(conversation.turns, target.takeForwarded().slice(0, -1));
      const budget = chars(kept);
      const ranked = ranker.rank(question.question, conversation.turns.length).map((id) => byId.get(id) as Turn);
      const row = (turns: Turn[]) => ({ evidenceKept: share(question.evidence, turns), size: chars(turns) / total });
      rows.push({
        memgate: row(kept),
        recency: row(fill(newestFirst, budget, true)),
        stemmedBm25: row(fill(ranked, budget)),
      });
    }
    onProgress(`history: ${conversation.id}: ${rows.length} questions so far`);
  }
  const average = (pick: (row: (typeof rows)[number]) => HistoryRow): HistoryRow => ({
    evidenceKept: mean(rows.map((row) => pick(row).evidenceKept)),
    size: mean(rows.map((row) => pick(row).size)),
  });
  return {
    questions: rows.length,
    memgate: average((row) => row.memgate),
    recency: average((row) => row.recency),
    stemmedBm25: average((row) => row.stemmedBm25),
  };
}
