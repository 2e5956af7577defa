/**
 * `undici` as the Lambda bundles see it (scripts/build.ts puts this module in its place): undici's own `request`,
 * Agent and connector, loaded on the first upstream request instead of at import. The proxy builds its SSRF-checking
 * dispatchers at start-up, but a function serving the default model, a replay or a refused request never opens an
 * upstream connection, so it need not evaluate ~250 KB of HTTP client. Only the three names memgate imports exist;
 * importing anything else from 'undici' fails the build. This file only works bundled: `require` here is esbuild's
 * (a bundled module evaluated on first call), not Node's.
 */
import type * as Undici from 'undici';

/** undici's request API: called on a dispatcher (`this`), with the URL already split into origin and path. */
type DispatcherRequest = (
  this: Pick<Undici.Dispatcher, 'dispatch'>,
  options: Undici.Dispatcher.RequestOptions,
) => Promise<Undici.Dispatcher.ResponseData>;

let undici: { request: DispatcherRequest; Agent: typeof Undici.Agent; buildConnector: typeof Undici.buildConnector };

function load(): typeof undici {
  undici ??= {
    request: require('undici/lib/api/api-request.js'),
    Agent: require('undici/lib/dispatcher/agent.js'),
    buildConnector: require('undici/lib/core/connect.js'),
  };
  return undici;
}

/** undici's `request(url, options)` for the one form the adapters use: an absolute URL and an explicit dispatcher. */
export const request = ((url: string, options: Undici.Dispatcher.RequestOptions & { dispatcher: Agent }) => {
  const target = new URL(url);
  const { dispatcher, ...rest } = options;
  return load().request.call(dispatcher, {
    ...rest,
    origin: target.origin,
    path: `${target.pathname}${target.search}`,
  });
}) as unknown as typeof Undici.request;

export const buildConnector = ((options: Undici.buildConnector.BuildOptions) => {
  let connect: Undici.buildConnector.connector | undefined;
  return (connectOptions: Undici.buildConnector.Options, callback: Undici.buildConnector.Callback) => {
    connect ??= load().buildConnector(options);
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
    this.#agent ??= new (load().Agent)(this.#options);
    return this.#agent.dispatch(options, handler);
  }

  close(): Promise<void> {
    return this.#agent ? this.#agent.close() : Promise.resolve();
  }

  destroy(error?: Error): Promise<void> {
    return this.#agent ? this.#agent.destroy(error ?? null) : Promise.resolve();
  }
}
