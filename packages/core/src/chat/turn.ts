import type { Principal } from '../auth/index.ts';
import { searchDistinct } from '../context/distinct.ts';
import type { SearchHit } from '../context/service.ts';
import { isMemgateError } from '../errors/index.ts';
import { formatContextMessage } from '../extractive/context-message.ts';
import type { ChatMessage } from '../model/index.ts';
import { cutWhole } from '../text.ts';
import { composeAnswer } from './compose.ts';
import { type ChatEvent, type ChatSource, chatFailureOf } from './events.ts';
import { personaPrompt } from './personas.ts';
import type { ChatSession, StoredMessage } from './ports.ts';
import type { ChatRequest, ChatSettings } from './service.ts';

const MAX_QUERY_CHARS = 10_000;

const quote = (text: string) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${cutWhole(line, 60)}…` : line;
};

function foundMessage(hits: SearchHit[]): string {
  if (hits.length === 0) return 'No stored context matched';
  const documents = new Set(hits.map((hit) => hit.documentId)).size;
  const passages = hits.length === 1 ? '1 relevant passage' : `${hits.length} relevant passages`;
  return `Found ${passages} in ${documents === 1 ? '1 document' : `${documents} documents`}`;
}

/**
 * Persona prompt and the request's system messages, then the injected context (after the system messages, as the
 * proxy injects it), then the session's earlier messages the request does not repeat, and the request's messages.
 */
function promptOf(
  settings: ChatSettings,
  request: ChatRequest,
  session: ChatSession,
  hits: SearchHit[],
): ChatMessage[] {
  const sent = new Set(request.chat_history.map((message) => `${message.role}\n${message.content}`));
  const earlier = session.messages.filter((message) => !sent.has(`${message.role}\n${message.content}`));
  const history = [...earlier, ...request.chat_history].map(({ role, content }) => ({ role, content }));
  const system: ChatMessage[] = [
    { role: 'system', content: personaPrompt(request.persona, settings.personas) },
    ...history.filter((message) => message.role === 'system'),
  ];
  if (hits.length > 0) {
    const passages = hits.map((hit) => ({ fileName: hit.fileName, text: hit.contextData }));
    system.push({ role: 'system', content: formatContextMessage(passages) });
  }
  return [...system, ...history.filter((message) => message.role !== 'system')];
}

/**
 * Writes a turn's messages after those of the session; at most this many tries when other turns write between. A try
 * fails only when another turn saved since it read, so up to 29 turns at once on one chat all save; the losers wait
 * a random while before reading again, to spread out. With 5 tries and no wait, 7 of 20 turns lost their answer.
 */
const SAVE_ATTEMPTS = 30;
const SAVE_BACKOFF_MS = 5;

/**
 * Appends `messages` to the session with a conditional write: when another turn on the same chat wrote first, the
 * session is read again and the messages appended to what it holds now, so neither turn's messages are lost.
 */
async function appendToSession(settings: ChatSettings, session: ChatSession, messages: StoredMessage[]): Promise<void> {
  let base = session;
  for (let attempt = 1; attempt <= SAVE_ATTEMPTS; attempt++) {
    const now = settings.clock.now();
    const next = {
      ...base,
      updatedAt: now.toISOString(),
      expiresAt: settings.expiryFrom(now),
      messages: [...base.messages, ...messages],
    };
    if (await settings.sessions.putSession(next)) return;
    await new Promise((resolve) => setTimeout(resolve, Math.random() * SAVE_BACKOFF_MS * Math.min(attempt, 10)));
    const latest = await settings.sessions.getSession(session.chatId, now);
    if (!latest) break;
    base = latest;
  }
  throw new Error(
    `chat ${session.chatId}: the session kept changing under concurrent turns; its messages were not saved`,
  );
}

/** Produces one answer's events; saves the session (and the replay) as it goes, even when cut short. */
export async function* runTurn(
  settings: ChatSettings,
  principal: Principal,
  request: ChatRequest,
  session: ChatSession,
  signal: AbortSignal,
): AsyncGenerator<ChatEvent> {
  const { sessions, contextStore, model, clock, ids } = settings;
  const question = request.chat_history.at(-1)?.content ?? '';
  const scope = request.scope ?? 'internal';
  const recorded: ChatEvent[] = [];
  const record = <E extends ChatEvent>(event: E) => {
    recorded.push(event);
    return event;
  };
  const asked: StoredMessage = {
    id: request.chat_history.at(-1)?.id ?? ids(),
    role: 'user',
    content: question,
    createdAt: clock.now().toISOString(),
  };
  let saved = false;
  const save = async (messages: StoredMessage[]) => {
    saved = true;
    await appendToSession(settings, session, messages);
  };
  const metadataEvent = () =>
    record({
      type: 'metadata' as const,
      content: { chatId: session.chatId, title: session.title, replaySessionID: ids() },
    });
  // Session and replay (the events recorded up to the metadata) both saved before metadata goes out, so the ids it
  // names already resolve.
  const finish = async (messages: StoredMessage[], { content }: ReturnType<typeof metadataEvent>) => {
    const now = clock.now();
    await Promise.all([
      save(messages),
      sessions.putReplay({
        replaySessionID: content.replaySessionID,
        chatId: session.chatId,
        ownerId: session.ownerId,
        createdAt: now.toISOString(),
        expiresAt: settings.expiryFrom(now),
        events: recorded,
      }),
    ]);
  };
  try {
    yield record({ type: 'thinking_update', content: `Searching your ${scope} context for "${quote(question)}"` });
    let hits: SearchHit[] = [];
    let searchFailed = false;
    try {
      // Near-duplicates of a better hit (the same answer captured again in other words) do not take a slot.
      hits = await searchDistinct(contextStore, principal, {
        query: question.slice(0, MAX_QUERY_CHARS),
        similarity_threshold: 1,
        minimum_similarity_threshold: settings.contextMinSimilarity,
        top_k: settings.contextTopK,
        scope,
      });
    } catch {
      // Context is an enhancement: a failing search must not fail the answer, but the step says so.
      searchFailed = true;
    }
    yield record({
      type: 'thinking_update',
      content: searchFailed ? 'Context search failed; answering without stored context' : foundMessage(hits),
    });
    yield record({ type: 'thinking_update', content: `Composing the answer with ${model.id}` });
    const messages = promptOf(settings, request, session, hits);
    let answer: Awaited<ReturnType<typeof composeAnswer>>;
    try {
      answer = await composeAnswer(
        model.stream(
          {
            model: model.id,
            messages,
            stream: true,
            stream_options: { include_usage: true },
            ...(request.tools && request.tools.length > 0 ? { tools: request.tools } : {}),
          },
          { signal },
        ),
        model.id,
        messages,
      );
      signal.throwIfAborted();
    } catch (error) {
      // An abort without a MemgateError as its reason is the client leaving: no one to tell.
      const cause = signal.aborted ? signal.reason : error;
      if (signal.aborted && !isMemgateError(cause)) throw error;
      // The session holds the question: metadata goes out before the error event, so the client can retry in the
      // same chat (a new chat's id is known only from it), and the replay holds the error event the stream then sends.
      const metadata = metadataEvent();
      record(chatFailureOf(cause));
      await finish([asked], metadata).catch(() => {
        throw error;
      });
      yield metadata;
      throw error;
    }
    const sources: ChatSource[] = hits.map(({ contextId, documentId, fileName, score }) => ({
      contextId,
      documentId,
      fileName,
      score,
    }));
    const final = record({
      type: 'final_response',
      content: answer.content,
      json: { sources, model: answer.model, usage: answer.usage, tool_calls: answer.toolCalls },
    });
    const metadata = metadataEvent();
    const reply: StoredMessage = {
      id: ids(),
      role: 'assistant',
      content: answer.content,
      createdAt: clock.now().toISOString(),
    };
    await finish([asked, reply], metadata);
    yield final;
    yield metadata;
  } finally {
    // Cut short (disconnect, model failure): keep the question so the session holds what it had before.
    if (!saved) await save([asked]).catch(() => undefined);
  }
}
