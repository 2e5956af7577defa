import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** One turn of a conversation: a document for retrieval, a chat message for the history filter. */
export interface Turn {
  /** LoCoMo's `dia_id`, e.g. `D1:3`; the document's fileName. */
  id: string;
  /** True for speaker A (sent as `user`), false for speaker B (`assistant`). */
  speakerA: boolean;
  /** `Speaker: text`, a shared photo's caption appended (the README's procedure). */
  content: string;
}

export interface Question {
  question: string;
  /** Evidence turn ids that exist in the conversation (LoCoMo has a few malformed ones). */
  evidence: string[];
  /** 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop. */
  category: number;
}

export interface Conversation {
  id: string;
  turns: Turn[];
  questions: Question[];
}

/** The file's shape (README of the data), only the fields the evaluation reads. */
interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}
interface RawSample {
  sample_id: string;
  conversation: Record<string, unknown> & { speaker_a: string };
  qa: { question: string; evidence?: string[]; category: number }[];
}

export const SCORED_CATEGORIES = [1, 2, 3, 4] as const;
export const CATEGORY_NAMES: Record<number, string> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
};

/** Sessions in order: `session_1`, `session_2`, ... (the keys' order in the file is not relied on). */
function sessionsOf(conversation: RawSample['conversation']): RawTurn[][] {
  return Object.keys(conversation)
    .map((key) => /^session_(\d+)$/.exec(key))
    .filter((match): match is RegExpExecArray => match !== null)
    .sort((a, b) => Number(a[1]) - Number(b[1]))
    .map((match) => conversation[match[0]] as RawTurn[])
    .filter(Array.isArray);
}

/** Turns and scored questions (categories 1-4 with at least one evidence turn) of LoCoMo-shaped samples. */
export function parseConversations(samples: RawSample[]): Conversation[] {
  return samples.map((sample) => {
    const turns: Turn[] = sessionsOf(sample.conversation)
      .flat()
      .map((turn) => ({
        id: turn.dia_id,
        speakerA: turn.speaker === sample.conversation.speaker_a,
        content: `${turn.speaker}: ${turn.text}${turn.blip_caption ? ` [shares a photo: ${turn.blip_caption}]` : ''}`,
      }));
    const known = new Set(turns.map((turn) => turn.id));
    const questions = sample.qa
      .filter((qa) => (SCORED_CATEGORIES as readonly number[]).includes(qa.category))
      // A few evidence entries hold two ids ("D8:6; D9:17"): split them; ids not in the conversation are dropped.
      .map((qa) => ({
        question: qa.question,
        category: qa.category,
        evidence: [...new Set((qa.evidence ?? []).flatMap((entry) => entry.split(/[;,\s]+/)))].filter((id) =>
          known.has(id),
        ),
      }))
      .filter((qa) => qa.evidence.length > 0);
    return { id: sample.sample_id, turns, questions };
  });
}

/**
 * Where the development split lives: LOCOMO_DATA when set, else `../shared/data/locomo/locomo-dev.json` beside the
 * repository (for a git worktree, beside its main checkout too). Undefined when absent: the data is CC BY-NC and
 * never part of the repository.
 */
export function locateLocomo(root: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.LOCOMO_DATA) return existsSync(env.LOCOMO_DATA) ? env.LOCOMO_DATA : undefined;
  const relative = join('..', 'shared', 'data', 'locomo', 'locomo-dev.json');
  const candidates = [resolve(root, relative)];
  const common = spawnSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (common.status === 0 && common.stdout.trim()) candidates.push(resolve(dirname(common.stdout.trim()), relative));
  return candidates.find((path) => existsSync(path));
}

export function loadConversations(path: string): Conversation[] {
  return parseConversations(JSON.parse(readFileSync(path, 'utf8')) as RawSample[]);
}
