/**
 * `undici` as the Lambda bundles see it (scripts/build.ts puts this module in its place): undici's own `request`,
 * Agent and connector, loaded on the first upstream request instead of at import. The proxy builds its SSRF-checking
 * dispatchers at start-up, but a function serving the default model, a replay or a refused request never opens an
 * upstream connection, so it need not read, compile or evaluate ~145 KiB of HTTP client: undici-parts.ts is imported
 * dynamically, which the build makes a chunk beside index.mjs. Only the three names memgate imports exist; importing
 * anything else from 'undici' fails the build.
 */
import type * as Undici from 'undici';

/** undici's request API: called on a dispatcher (`this`), with the URL already split into origin and path. */
type DispatcherRequest = (
  this: Pick<Undici.Dispatcher, 'dispatch'>,
  options: Undici.Dispatcher.RequestOptions,
) => Promise<Undici.Dispatcher.ResponseData>;

type Parts = { request: DispatcherRequest; Agent: typeof Undici.Agent; buildConnector: typeof Undici.buildConnector };

let loading: Promise<Parts> | undefined;
let undici: Parts | undefined;

function load(): Promise<Parts> {
  loading ??= import('./undici-parts.ts').then(({ undiciParts }) => {
    undici = undiciParts as Parts;
    return undici;
  });
  return loading;
}

/** The loaded parts, for what only runs inside a request (an Agent's dispatch, its connector): `request` loads them. */
function loaded(): Parts {
  if (!undici) throw new Error('undici is used before its first request loaded it');
  return undici;
}

/** undici's `request(url, options)` for the one form the adapters use: an absolute URL and an explicit dispatcher. */
export const request = (async (url: string, options: Undici.Dispatcher.RequestOptions & { dispatcher: Agent }) => {
  const target = new URL(url);
  const { dispatcher, ...rest } = options;
  return (await load()).request.call(dispatcher, {
    ...rest,
    origin: target.origin,
    path: `${target.pathname}${target.search}`,
  });
}) as unknown as typeof Undici.request;

export const buildConnector = ((options: Undici.buildConnector.BuildOptions) => {
  let connect: Undici.buildConnector.connector | undefined;
  return (connectOptions: Undici.buildConnector.Options, callback: Undici.buildConnector.Callback) => {
    connect ??= loaded().buildConnector(options);
    return connect(connectOptions, callback);
  };
}) as typeof Undici.buildConnector;

/** Builds the real Agent on its first dispatch; undici's request only calls `dispatch`. */
export class Agent {
  readonly #options: Undici.Agent.Options | undefined;
  #agent: Undici.Agent | undefined;

  constructor(options?: Undici.Agent.Options) {
    this.#options = options;
  }

  dispatch(options: Undici.Dispatcher.DispatchOptions, handler: Undici.Dispatcher.DispatchHandler): boolean {
    this.#agent ??= new (loaded().Agent)(this.#options);
    return this.#agent.dispatch(options, handler);
  }

  close(): Promise<void> {
    return this.#agent ? this.#agent.close() : Promise.resolve();
  }

  destroy(error?: Error): Promise<void> {
    return this.#agent ? this.#agent.destroy(error ?? null) : Promise.resolve();
  }
}
