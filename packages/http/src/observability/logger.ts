/** Structured JSON logs, one line per event. Every string passes through `redactSecrets` first. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

const SECRET_PATTERNS: RegExp[] = [
  /\bBearer\s+[^\s"',]+/gi, // Authorization header values
  /\beyJ[\w-]{5,}\.[\w-]{5,}\.[\w-]*/g, // JWTs
  /\b(?:sk|pk|pcsk|rk)[-_][\w-]{8,}/g, // vendor API keys (OpenAI, Pinecone...)
  /\/api\/v1\/proxy\/(?!default\/|\*)\S+/g, // a proxy path carries the target key
];

/**
 * What every secret pattern's match contains (case folded, so it may match more): most strings hold none of it and
 * are returned after one scan instead of one per pattern.
 */
const MAY_HOLD_SECRET = /bearer|eyJ|\b(?:sk|pk|pcsk|rk)[-_]|\/api\/v1\/proxy\//i;

/** Removes anything that looks like a token or key from a string. */
export function redactSecrets(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  let out = text;
  for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, '[redacted]');
  return out;
}

/** A copy of a value with every string in it (to a depth of 4) passed through `redactSecrets`. */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = redactValue(item, depth + 1);
  return out;
}

export function createJsonLogger({
  level = 'info',
  sink = (line: string) => process.stdout.write(`${line}\n`),
  base = {},
}: {
  level?: LogLevel;
  sink?: (line: string) => void;
  base?: LogFields;
} = {}): Logger {
  const threshold = RANK[level];
  function write(at: Exclude<LogLevel, 'silent'>, message: string, fields?: LogFields): void {
    if (RANK[at] < threshold) return;
    const entry: LogFields = { time: new Date().toISOString(), level: at, msg: message, ...base, ...fields };
    // Redacted in place: the entry is this line's own object, so no copy of it (one line per request is logged).
    for (const key in entry) entry[key] = redactValue(entry[key], 1);
    sink(JSON.stringify(entry));
  }
  return {
    debug: (message, fields) => write('debug', message, fields),
    info: (message, fields) => write('info', message, fields),
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
  };
}

export const silentLogger: Logger = createJsonLogger({ level: 'silent' });
